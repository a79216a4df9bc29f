import type { Frame } from '../shared/frame.js';
import { becomeSubreaper } from '../shared/subreaper.js';
import { openSupervisorChannel } from './runtime/channel.js';
import { spawnedChildren, type ExecRequest } from './runtime/exec-command.js';
import { PersistentShell } from './runtime/persistent-shell.js';
import { killEverythingStarted } from './runtime/reap.js';

// One long-lived terminal worker per owner (legacy MCP session or capability token), in its own PID
// namespace. It runs that owner's foreground commands one at a time in a persistent bash
// (runtime/persistent-shell.ts); cwd and exports persist in that shell and in the owner's state
// directory, which the supervisor owns.
//
// Frames in:  {type:'exec', id, command, cwd, timeoutMs, stateDir, maxOutputBytes}, {type:'shutdown'}
// Frames out: {type:'ready'}, {type:'result', id, exitCode, timedOut, output, outputBytes, cwd?}
//             or {type:'result', id, error:'busy'}

becomeSubreaper();
let busy = false;
const shell = new PersistentShell();

const channel = openSupervisorChannel(onFrame, () => shutdown());
process.on('SIGTERM', () => shutdown()); // as PID 1 of the namespace there is no default TERM action
channel.send({ type: 'ready' });

function shutdown(): never {
  shell.kill();
  killEverythingStarted(spawnedChildren);
  process.exit(0);
}

function onFrame(frame: Frame): void {
  if (frame.type === 'shutdown') shutdown();
  if (frame.type === 'exec') void exec(frame as unknown as ExecRequest & { id: string });
}

async function exec(req: ExecRequest & { id: string }): Promise<void> {
  if (busy) return channel.send({ type: 'result', id: req.id, error: 'busy' });
  busy = true;
  try {
    channel.send({ type: 'result', id: req.id, ...(await shell.run(req)) });
  } finally {
    busy = false;
  }
}
