import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { encodeFrame, FrameDecoder, type Frame } from '../../shared/worker-protocol/frame.js';
import { waitFor } from './wait.js';

// A worker process as the supervisor sees it, for a worker module's unit test: a real child with the
// fd-3 channel, the frames it sent (decoded), its stdout and stderr, and a way to send it frames.
// No gateway and no supervisor runtime: the test speaks the frames itself.

export interface WorkerChild {
  child: ChildProcess;
  frames: Frame[];
  stdout(): string;
  stderr(): string;
  send(frame: Frame, maxBytes?: number): void;
  /** The first frame (in arrival order) matching `match`, waited for up to `ms`. */
  next(match: (frame: Frame) => boolean, what: string, ms?: number): Promise<Frame>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if still running (by its pid, from the file's after hook). */
  stop(): void;
}

/** Starts `node args…` with the channel on fd 3 and `env` as its whole environment. */
export function startWorkerChild(args: readonly string[], env: Record<string, string>, cwd = '/'): WorkerChild {
  const child = spawn(process.execPath, [...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const channel = child.stdio[3] as Duplex;
  channel.on('error', () => {});
  const frames: Frame[] = [];
  const decoder = new FrameDecoder((f) => frames.push(f), () => {}, 1 << 26);
  channel.on('data', (chunk: Buffer) => decoder.push(chunk));
  return {
    child,
    frames,
    stdout: () => out,
    stderr: () => err,
    send: (frame, maxBytes = 1 << 26) => channel.write(encodeFrame(frame, maxBytes)),
    next: (match, what, ms = 10_000) => waitFor(() => frames.find(match), ms, `${what}; stderr: ${err}`, 10),
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** An inline ES module for `node --input-type=module -e`, importing the compiled `modules` by absolute path. */
export function inlineModule(imports: Record<string, string>, body: string): string[] {
  const lines = Object.entries(imports).map(([names, path]) => `import { ${names} } from ${JSON.stringify(path)};`);
  return ['--input-type=module', '-e', `${lines.join('\n')}\n${body}`];
}
