import type { Frame } from '../shared/frame.js';
import { becomeSubreaper } from '../shared/subreaper.js';
import { openSupervisorChannel } from './runtime/channel.js';
import { runCommand, spawnedChildren, type ExecRequest } from './runtime/exec-command.js';
import { killEverythingStarted } from './runtime/reap.js';

// The command helper of one execute_code unit: runs the script's hermes_tools.terminal commands
// inside the unit's PID namespace, so they share the script's fate. Started on demand by the unit's
// init (workers/execute/unit.py) at the first command, connected to it on fd 3; the init forwards
// the gateway's 'exec' frames here and the results back, whole. When the channel closes (the unit
// is ending), everything the commands left behind is killed.
//
// Frames in:  {type:'exec', id, ...ExecRequest}
// Frames out: {type:'result', id, ...ExecResult} or {type:'result', id, error}

becomeSubreaper();
const channel = openSupervisorChannel(onFrame, () => {
  killEverythingStarted(spawnedChildren);
  process.exit(0);
});

function onFrame(frame: Frame): void {
  if (frame.type !== 'exec') return;
  const req = frame as unknown as ExecRequest & { id: string };
  void runCommand(req).then(
    (result) => channel.send({ type: 'result', id: req.id, ...result }),
    (error: Error) => channel.send({ type: 'result', id: req.id, error: error.message }),
  );
}
