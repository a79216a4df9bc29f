import type { ExecMessage } from '../shared/worker-protocol/exec.js';
import { terminalProtocol, type TerminalProtocol } from '../shared/worker-protocol/terminal.js';
import { spawnedChildren } from './runtime/exec-command.js';
import { PersistentShell } from './runtime/persistent-shell.js';
import { killEverythingStarted } from './runtime/reap.js';
import { runWorker } from './runtime/run-worker.js';

// One long-lived terminal worker per owner (legacy MCP session or capability token), in its own PID
// namespace. It runs that owner's foreground commands one at a time in a persistent bash
// (runtime/persistent-shell.ts); cwd and exports persist in that shell and in the owner's state
// directory, which the supervisor owns.
//
// It speaks the terminal protocol (shared/worker-protocol/terminal.ts).

let busy = false;
const shell = new PersistentShell();

const channel = runWorker(terminalProtocol, { message: onMessage, lost: shutdown, terminate: shutdown });

function shutdown(): never {
  shell.kill();
  killEverythingStarted(spawnedChildren);
  process.exit(0);
}

function onMessage(message: TerminalProtocol['toWorker']): void {
  if (message.type === 'shutdown') shutdown();
  else void exec(message);
}

async function exec(req: ExecMessage): Promise<void> {
  if (busy) return channel.send({ type: 'result', id: req.id, error: 'busy' });
  busy = true;
  try {
    channel.send({ type: 'result', id: req.id, ...(await shell.run(req)) });
  } finally {
    busy = false;
  }
}
