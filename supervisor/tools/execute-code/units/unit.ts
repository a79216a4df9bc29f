import type { Readable, Writable } from 'node:stream';
import type { ExecuteUnitProtocol } from '../../../../shared/worker-protocol/execute.js';
import type { ReplyTo, RequestBody, RequestType } from '../../../../shared/worker-protocol/protocol.js';
import type { WorkerExit } from '../../../platform/spawning/worker-process.js';

// The one interface both kinds of execute_code unit implement (a unit forked by the zygote,
// forked-unit.ts, and a unit spawned on its own, index.ts), apart from where they come from.

type UnitMessage = ExecuteUnitProtocol['fromWorker'];

/** A running execute_code unit: what the pool (pool.ts) uses of it, whichever way it was made. */
export interface ExecuteUnit {
  readonly exited: Promise<WorkerExit>;
  /** The unit's init as the gateway sees it (undefined until known). */
  readonly pid: number | undefined;
  /** False once the unit is known to have ended, which can be before `exited` settles. */
  readonly alive: boolean;
  /** The script's stdin (the code goes in, then EOF), stdout and stderr. */
  readonly scriptIo: { stdin: Writable; stdout: Readable; stderr: Readable };
  describeExit(): string;
  /** Every message the unit sends, in order (responses to request() included). */
  onFrame(handler: (message: UnitMessage) => void): () => void;
  /** Sends a request (the unit's protocol: a script's terminal command) and resolves with its response. */
  request<K extends RequestType<ExecuteUnitProtocol>>(body: RequestBody<ExecuteUnitProtocol, K>): Promise<ReplyTo<ExecuteUnitProtocol, K>>;
  /** Resolves with the first message `match` accepts; rejects if the unit exits first. */
  waitFor<M extends UnitMessage>(match: (message: UnitMessage) => message is M): Promise<M>;
  /** Whole-tree teardown; resolves once the unit and everything it started are gone. */
  kill(): Promise<void>;
}
