import { executeCommandsProtocol } from '../shared/worker-protocol/execute.js';
import type { ExecMessage } from '../shared/worker-protocol/exec.js';
import { runCommand, spawnedChildren } from './runtime/exec-command.js';
import { killEverythingStarted } from './runtime/reap.js';
import { runWorker } from './runtime/run-worker.js';

// The command helper of one execute_code unit: runs the script's hermes_tools.terminal commands
// inside the unit's PID namespace, so they share the script's fate. Started on demand by the unit's
// init (workers/execute/unit.py) at the first command, connected to it on fd 3; the init forwards
// the gateway's 'exec' frames here and the results back, whole. When the channel closes (the unit
// is ending), everything the commands left behind is killed.
// It speaks the command helper's part of the execute_code unit protocol
// (shared/worker-protocol/execute.ts).

// It is not PID 1 of the unit's namespace (the init is), so SIGTERM keeps its default. The protocol
// has no 'ready': the init starts it at the first command and forwards that command at once.
const channel = runWorker(executeCommandsProtocol, {
  message: exec,
  lost: () => {
    killEverythingStarted(spawnedChildren);
    process.exit(0);
  },
});

function exec(req: ExecMessage): void {
  void runCommand(req).then(
    (result) => channel.send({ type: 'result', id: req.id, ...result }),
    (error: Error) => channel.send({ type: 'result', id: req.id, error: error.message }),
  );
}
