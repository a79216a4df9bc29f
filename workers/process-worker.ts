import { spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { processProtocol, type ProcessProtocol } from '../shared/worker-protocol/process.js';
import { startPtyCommand, type PtyCommand } from './pty/pty-command.js';
import { killEverythingStarted, signalEverythingStarted } from './runtime/reap.js';
import { runWorker } from './runtime/run-worker.js';

// One tracked background process (the process_manage surface; started by the jobs adapter), in its
// own PID namespace. Output is streamed to the supervisor as it comes (the supervisor keeps the
// rolling buffer); stdin can be written and closed; when the command exits, or on 'kill', everything
// it started dies and the worker exits, taking the namespace with it. 'terminate' is the polite step
// (SIGTERM to everything started; the supervisor escalates to 'kill' after its grace period).
// With `exitFile` (jobs), the outcome is also written there, atomically, before the exit frame: if
// the gateway dies between the command's end and recording it, its successor reads the file
// instead of calling the job unknown.
// With `pty` the command runs on a pseudo-terminal instead of pipes (workers/pty/), inside this same
// namespace, so the same cleanup covers it; its output is rendered to text here, where the terminal
// is, and its rendering costs count against the job's own limits, not the supervisor's.
// It speaks the process protocol (shared/worker-protocol/process.ts).

const OUTPUT_SLICE_CHARS = 65_536;
/** How long the last frames may take to leave before the worker exits anyway (the supervisor waits 2 s for an exit). */
const EXIT_FLUSH_MS = 1000;

const spawned = new Set<number>();
let child: ReturnType<typeof spawn> | undefined;
let terminal: PtyCommand | undefined;
let starting = false;
let killed = false;
let done = false;
let exitFile: string | undefined;

const channel = runWorker(processProtocol, {
  message: onMessage,
  // The supervisor gone: nothing may outlive it, and no exit record is written (see finish).
  lost: () => finish(null, 'SIGKILL', 'supervisor_lost'),
  terminate: () => finish(null, 'SIGTERM'),
});

function onMessage(message: ProcessProtocol['toWorker']): void {
  if (message.type === 'start' && !starting) {
    starting = true;
    if (typeof message.exitFile === 'string') exitFile = message.exitFile;
    if (message.pty) void startOnTerminal(message.command, message.cwd, message.pty);
    else start(message.command, message.cwd);
  } else if (message.type === 'terminate') signalEverythingStarted('SIGTERM');
  else if (message.type === 'stdin') {
    // What is written is passed on, never logged or kept.
    if (terminal) writeToTerminal(() => terminal!.write(message.data));
    else child?.stdin?.write(message.data);
  } else if (message.type === 'close-stdin') {
    if (terminal) writeToTerminal(() => terminal!.endInput());
    else child?.stdin?.end();
  } else if (message.type === 'resize') {
    if (terminal) writeToTerminal(() => terminal!.resize({ cols: message.cols, rows: message.rows }));
  }
  else if (message.type === 'kill') {
    killed = true;
    finish(null, 'SIGKILL');
  }
}

function start(command: string, cwd: string): void {
  // --norc: stdin is a socket pair, which makes bash believe it runs under rshd and source
  // ~/.bashrc (which may block or print); the process gets exactly the gateway's scrubbed env.
  child = spawn('bash', ['--norc', '--noprofile', '-c', 'exec 2>&1\n' + command], { cwd, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
  if (child.pid) spawned.add(child.pid);
  child.stdin!.on('error', () => {});
  child.stdout!.on('data', (chunk: Buffer) => channel.send({ type: 'output', data: chunk.toString('utf8') }));
  child.once('error', (e) => {
    channel.send({ type: 'output', data: `failed to start: ${e.message}\n` });
    finish(127, null);
  });
  child.once('spawn', () => channel.send({ type: 'started', pid: child!.pid }));
  // 'exit', not 'close': an escapee holding the pipe must not keep the process "running".
  child.once('exit', (code, signal) => setTimeout(() => finish(code, signal), 20));
}

async function startOnTerminal(command: string, cwd: string, size: { cols: number; rows: number }): Promise<void> {
  try {
    terminal = await startPtyCommand(command, cwd, size, {
      // Finished rows arrive a rendered piece at a time (up to the emulator's whole scrollback):
      // sent in slices, well inside the frame cap whatever the characters' encoded size.
      output: (data) => {
        for (let i = 0; i < data.length; i += OUTPUT_SLICE_CHARS) channel.send({ type: 'output', data: data.slice(i, i + OUTPUT_SLICE_CHARS) });
      },
      screen: (data) => channel.send({ type: 'screen', data }),
      exit: (code, signal) => finish(code, signal),
    });
  } catch (e) {
    channel.send({ type: 'output', data: `failed to start on a terminal: ${(e as Error).message}\n` });
    finish(127, null);
    return;
  }
  // Left for node-pty to reap (its own waitpid), like a child_process child is left to libuv.
  spawned.add(terminal.pid);
  channel.send({ type: 'started', pid: terminal.pid });
}

/** A write (or resize) racing the command's exit finds the terminal closed: nothing is left to read it. */
function writeToTerminal(write: () => void): void {
  try {
    write();
  } catch {
    // the terminal is gone
  }
}

function finish(code: number | null, signal: NodeJS.Signals | null, cause?: 'supervisor_lost'): void {
  if (done) return;
  done = true;
  killEverythingStarted(spawned);
  // Killed because the gateway is gone: no record, so its successor reports the job `unknown` and
  // keeps the workspace quarantined (a command cut off mid-way may have left it half-changed).
  if (exitFile && cause !== 'supervisor_lost') recordExit(exitFile, { exitCode: code, signal, killed, at: Date.now() });
  channel.send({ type: 'exit', exitCode: code, signal, killed });
  // The output may still be queued behind a slow reader (a PTY's last screenful is sent in one
  // burst when the command ends): exiting before it is written would cut the receipt short.
  void channel.flushed(EXIT_FLUSH_MS).then(() => process.exit(0));
}

function recordExit(path: string, outcome: Record<string, unknown>): void {
  try {
    writeFileSync(`${path}.tmp`, JSON.stringify(outcome), { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
  } catch {
    // Best effort: without the file a lost gateway reports the job unknown, which stays honest.
  }
}
