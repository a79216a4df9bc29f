import { becomeSubreaper } from '../../shared/subreaper.js';
import type { Frame } from '../../shared/worker-protocol/frame.js';
import type { ProtocolMessages, ReadyMessage, WorkerProtocol } from '../../shared/worker-protocol/protocol.js';
import { openSupervisorChannel, type SupervisorChannel } from './channel.js';

// The start of every worker entry (workers/*-worker.ts, execute-commands.ts): the worker becomes a
// child subreaper (orphans of its work re-parent to it, so its cleanup finds them), opens its
// channel to the supervisor in its kind's protocol, takes SIGTERM, and announces that it is up. The
// entry states only its handlers; the state they use may be declared after this call, since nothing
// reaches a handler before the entry module has finished loading (messages, the channel's close
// and signals all arrive on later turns of the event loop).

export interface WorkerHandlers<P extends ProtocolMessages> {
  /** Each message the supervisor sends, already checked against the protocol. */
  message(message: P['toWorker']): void;
  /** The supervisor is gone (its end of the channel closed): the worker must not outlive it. */
  lost(): void;
  /**
   * SIGTERM. A worker that is PID 1 of its namespace has no default action for it, so each such
   * kind says what it means; without this handler the signal keeps its default.
   */
  terminate?: () => void;
}

const READY: ReadyMessage = { type: 'ready' };

/**
 * Starts the worker of `protocol` with `handlers` and returns its channel. The 'ready'
 * announcement is sent when the protocol has one (every worker the supervisor spawns; not the
 * execute_code command helper, which its unit's init starts on demand).
 */
export function runWorker<P extends ProtocolMessages>(protocol: WorkerProtocol<P>, handlers: WorkerHandlers<P>): SupervisorChannel<P> {
  becomeSubreaper();
  const channel = openSupervisorChannel(protocol, (message) => handlers.message(message), () => handlers.lost());
  const terminate = handlers.terminate;
  if (terminate) process.on('SIGTERM', () => terminate());
  const ready: Frame = READY;
  if (protocol.isFromWorker(ready)) channel.send(ready);
  return channel;
}
