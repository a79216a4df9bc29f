import { spawn } from 'node:child_process';
import type { Frame } from '../shared/frame.js';
import { BoundedCollector } from '../shared/output-cap.js';
import { becomeSubreaper } from '../shared/subreaper.js';
import { openSupervisorChannel } from './runtime/channel.js';
import { runCommand, spawnedChildren, type ExecRequest } from './runtime/exec-command.js';
import { killEverythingStarted } from './runtime/reap.js';

// One execute_code call, start to finish, in its own PID namespace. The Python interpreter is
// started at once and blocks reading the script from stdin (workers/execute/runner.py), so a
// pre-spawned worker hides interpreter start-up; it still runs exactly one script. When the script
// exits, everything it started is killed and the worker exits, taking the namespace with it.
// hermes_tools.terminal calls arrive from the supervisor as 'exec' frames and run here, inside the
// same namespace, so they share the script's fate.
//
// Frames in:  {type:'run', code}, {type:'exec', id, ...ExecRequest}
// Frames out: {type:'ready'}, {type:'result', id, ...}, {type:'done', exitCode, signal, stdout, stderr, ...}

becomeSubreaper();
const transportCap = Number(process.env.HERMES_MCP_TRANSPORT_MAX_BYTES) || 1024 * 1024;
const python = spawn(process.env.HERMES_MCP_PYTHON || 'python3', [process.env.HERMES_MCP_RUNNER!], {
  stdio: ['pipe', 'pipe', 'pipe'],
  env: withoutWorkerSettings(process.env),
});
if (python.pid) spawnedChildren.add(python.pid);
const stdout = new BoundedCollector({ maxBytes: transportCap });
const stderr = new BoundedCollector({ maxBytes: transportCap });
python.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
python.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
python.stdin.on('error', () => {}); // the script may exit before reading everything

const channel = openSupervisorChannel(onFrame, () => finish(null, 'SIGKILL'));
process.on('SIGTERM', () => finish(null, 'SIGTERM'));
python.once('spawn', () => channel.send({ type: 'ready' }));
python.once('error', (error) => {
  stderr.push(`could not start ${process.env.HERMES_MCP_PYTHON}: ${error.message}\n`);
  finish(127, null);
});
// 'close' comes once Python has exited and its pipes are drained; if an escapee holds the pipes
// open, 'close' never comes, so 'exit' arms a short grace after which finish() kills it.
python.once('close', (code, signal) => finish(code, signal));
python.once('exit', (code, signal) => {
  setTimeout(() => finish(code, signal), 50);
});

let finished = false;
function finish(code: number | null, signal: NodeJS.Signals | null): void {
  if (finished) return;
  finished = true;
  killEverythingStarted(spawnedChildren);
  const out = stdout.result({ thousands: true });
  const err = stderr.result({ thousands: true });
  channel.send({ type: 'done', exitCode: code, signal, stdout: out.text, stdoutBytes: out.totalBytes, stderr: err.text, stderrBytes: err.totalBytes });
  // The supervisor tears the namespace down once it has the frame; exiting on our own is the
  // fallback should it not (a socket write completes before exit only if we yield once).
  setImmediate(() => process.exit(0));
}

function onFrame(frame: Frame): void {
  if (frame.type === 'run') {
    python.stdin.end(String(frame.code));
  } else if (frame.type === 'exec') {
    const req = frame as unknown as ExecRequest & { id: string };
    void runCommand(req).then(
      (result) => channel.send({ type: 'result', id: req.id, ...result }),
      (error: Error) => channel.send({ type: 'result', id: req.id, error: error.message }),
    );
  }
}

/** The worker's own settings are not the script's business. */
function withoutWorkerSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.HERMES_MCP_PYTHON;
  delete copy.HERMES_MCP_RUNNER;
  delete copy.HERMES_MCP_TRANSPORT_MAX_BYTES;
  return copy;
}
