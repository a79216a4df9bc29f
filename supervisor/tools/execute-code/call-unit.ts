import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { settledWithin } from '../../../shared/settle.js';
import { BoundedCollector } from '../../../shared/output-cap.js';
import { descendantsOf } from '../../../shared/proc.js';
import type { DoneMessage } from '../../../shared/worker-protocol/execute.js';
import type { CallContext } from '../../core/tool-types.js';
import type { CgroupLimit } from '../../platform/spawning/cgroup-limits.js';
import { removeDir, type WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import { startRpcServer, type RpcServer } from './rpc/index.js';
import type { ExecuteUnit, ExecuteUnitSource } from './units/index.js';

// One execute_code unit as a call uses it: the unit (forked or spawned, units/), its own RPC
// socket and token, its private directory, its cgroup under the direct cgroup fallback, and the
// script's output, bounded in transit.

/** The tools a script's hermes_tools may call. */
const RPC_TOOLS = ['web_search', 'web_extract', 'read_file', 'write_file', 'search_files', 'patch', 'terminal'] as const;

/**
 * After the script's exit, how long its output pipes may stay open (something it started outside
 * the PID namespace still holding them) before the output is taken as it is.
 */
export const OUTPUT_DRAIN_GRACE_MS = 50;

/** A unit made ready for one execute_code call: its worker, RPC socket, directory and output. */
export interface CallUnit {
  worker: ExecuteUnit;
  rpc: RpcServer;
  dir: string;
  cwd: string;
  /** Its own cgroup under the direct cgroup fallback of the resource policy. */
  cgroup?: CgroupLimit;
  stdout: BoundedCollector;
  stderr: BoundedCollector;
  /** Both of the script's output pipes reached EOF. */
  drained: Promise<void>;
  /** Settles once the script's interpreter is up and waiting for its code (rejects if it died). */
  ready: Promise<void>;
  /** `ready` has resolved. */
  isReady?: boolean;
  /** The call this unit serves; RPC calls arriving before it is claimed are refused. */
  call?: { ctx: CallContext; deadline: number };
}

/**
 * A new unit in `cwd`. Its RPC calls go to `dispatch` once a call has claimed it (unit.call);
 * before that they are refused.
 */
export async function createCallUnit(runtime: WorkerRuntime, units: ExecuteUnitSource, cwd: string, dispatch: (unit: CallUnit, tool: string, args: Record<string, unknown>) => Promise<unknown>): Promise<CallUnit> {
  const { limits } = runtime.config;
  const cgroup = runtime.shortWorkerCgroup();
  const dir = runtime.privateDir('exec');
  const token = randomBytes(32).toString('base64url');
  const unit = { dir, cwd, ...(cgroup ? { cgroup } : {}) } as CallUnit;
  try {
    unit.rpc = await startRpcServer({
      dir,
      token,
      allowed: RPC_TOOLS,
      maxCalls: limits.executeCodeMaxToolCalls,
      dispatch: (tool, args) => {
        if (!unit.call) return Promise.resolve({ error: 'no execute_code call is bound to this socket' });
        return dispatch(unit, tool, args);
      },
    });
  } catch (e) {
    cgroup?.remove();
    removeDir(dir);
    throw e;
  }
  // Injected after scrubbing, as Hermes does: the script's RPC endpoint (the Python settings are
  // the unit source's, the same for every unit).
  const worker = await units.start({ cwd, env: { HERMES_RPC_SOCKET: unit.rpc.path, HERMES_RPC_TOKEN: token } });
  unit.worker = worker;
  // The script's output, bounded in transit (head + rolling tail) whatever it prints.
  const io = worker.scriptIo;
  io.stdin.on('error', () => {}); // the script may exit before reading its code
  unit.stdout = new BoundedCollector({ maxBytes: limits.workerTransportMaxBytes });
  unit.stderr = new BoundedCollector({ maxBytes: limits.workerTransportMaxBytes });
  io.stdout.on('data', (chunk: Buffer) => unit.stdout.push(chunk));
  io.stderr.on('data', (chunk: Buffer) => unit.stderr.push(chunk));
  const ended = (stream: NodeJS.ReadableStream) => new Promise<void>((resolve) => stream.once('close', () => resolve()));
  unit.drained = Promise.all([ended(io.stdout), ended(io.stderr)]).then(() => undefined);
  unit.ready = worker
    .waitFor((f) => f.type === 'ready')
    .then(() => {
      // Nothing but the init and the script's idle interpreter exists yet: moved in now, every
      // process the script starts is born inside the limited cgroup.
      if (cgroup && worker.pid) for (const pid of [worker.pid, ...descendantsOf(worker.pid)]) cgroup.adopt(pid);
      unit.isReady = true;
    });
  unit.ready.catch(() => {});
  return unit;
}


/** Ends the unit and its namespace, closes its RPC socket, removes its cgroup and directory. */
export async function destroyCallUnit(unit: CallUnit): Promise<void> {
  await unit.worker.kill();
  await unit.rpc.close();
  unit.cgroup?.remove();
  // Off the event loop: a unit is torn down per call, often while the next call is answered.
  await rm(unit.dir, { recursive: true, force: true });
}

/**
 * The unit's `done` frame; rejects if the unit ends without one. The init exits right after
 * sending it, and the exit may be noticed before the frame is read: the output pipes closing (or
 * the drain grace) comes after the frame, so only then is a missing frame a crash.
 */
export function doneFrame(unit: CallUnit): Promise<DoneMessage> {
  return new Promise((resolve, reject) => {
    const off = unit.worker.onFrame((message) => {
      if (message.type !== 'done') return;
      off();
      resolve(message);
    });
    void unit.worker.exited.then(async () => {
      await settledWithin(unit.drained, OUTPUT_DRAIN_GRACE_MS);
      await new Promise((r) => setImmediate(r));
      off();
      reject(new Error(`unit exited (${unit.worker.describeExit()}) without reporting its script`));
    });
  });
}
