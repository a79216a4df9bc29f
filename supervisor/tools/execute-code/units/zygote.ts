import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { maxFrameBytes } from '../../../../shared/worker-protocol/caps.js';
import type { ZygoteProtocol } from '../../../../shared/worker-protocol/zygote.js';
import { WORKER_TAG_VAR } from '../../../../shared/proc.js';
import { UnitConnectionServer } from './unit-connections.js';
import type { WorkerProcess } from '../../../platform/spawning/worker-process.js';
import { removeDir, stageZygoteCode, type WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';
import { ForkedUnit } from './forked-unit.js';

// The unit zygote: one long-lived, warm Python process per gateway (workers/execute/zygote.py,
// under `setpriv --pdeathsig KILL`, so it dies with the gateway) that forks execute_code units on
// request, each a fresh process tree in its own PID namespace running exactly one script. Forking
// a warm interpreter costs a few forks instead of two program starts and an interpreter start-up,
// which is what bounded how quickly calls could follow each other.
//
// The gateway talks to the zygote with frames on its fd 3 (spawn, kill / ready, unavailable,
// exit); the units connect back to this gateway's private unit socket (unit-connections.ts). If
// the zygote dies, every unit it holds dies with it (parent-death signals all the way down) and is
// reported ended; the next unit starts a new zygote (index.ts).

export class Zygote {
  /** Settles once the zygote can fork units (rejects with the reason it cannot). */
  readonly ready: Promise<void>;
  private readonly units = new Map<string, ForkedUnit>();
  private readonly dir: string;
  private server?: UnitConnectionServer;
  private worker?: WorkerProcess<ZygoteProtocol>;
  private ended = false;

  constructor(
    private readonly runtime: WorkerRuntime,
    env: Record<string, string>,
  ) {
    this.dir = runtime.privateDir('zygote');
    this.ready = this.boot(env);
    this.ready.catch(() => {});
  }

  /** The zygote is up (or starting) and has not ended. */
  get alive(): boolean {
    return !this.ended;
  }

  /** The zygote process's pid (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.worker?.pid;
  }

  private async boot(env: Record<string, string>): Promise<void> {
    const { limits } = this.runtime.config;
    const startMs = limits.workerStartTimeoutSeconds * 1000;
    try {
      this.server = await UnitConnectionServer.listen(join(this.dir, 'units.sock'), startMs);
    } catch (e) {
      this.end();
      throw e;
    }
    if (this.ended) {
      void this.server.close().catch(() => {}); // closed while the socket was being set up
      throw new Error('unit zygote closed while starting');
    }
    let script: string;
    try {
      script = stageZygoteCode(this.dir);
    } catch (e) {
      await this.close();
      throw e;
    }
    const worker = this.runtime.spawnWorker('execute-zygote', { env, script });
    this.worker = worker;
    worker.onFrame((frame) => this.onControl(frame));
    void worker.exited.then(() => this.end(`unit zygote exited (${worker.describeExit()})`));
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([
      worker.waitFor((m) => m.type === 'ready' || m.type === 'unavailable'),
      new Promise<{ type: 'timeout' }>((resolve) => (timer = setTimeout(() => resolve({ type: 'timeout' }), startMs))),
    ]).finally(() => clearTimeout(timer));
    if (first.type === 'ready') return;
    await this.close();
    throw new Error(first.type === 'unavailable' ? first.reason : `the unit zygote did not come up within ${startMs} ms`);
  }

  private onControl(message: ZygoteProtocol['fromWorker']): void {
    if (message.type !== 'exit') return;
    this.units.get(message.id)?.reportExit(message.code, message.signal, message.error ?? '');
    this.units.delete(message.id);
  }

  /**
   * A new unit: `cwd`, and `env` on top of the zygote's own environment (the scrubbed one every
   * unit gets). Call once `ready` has resolved.
   */
  fork(options: { cwd: string; env: Record<string, string>; onFailure?: (reason: string) => void }): ForkedUnit {
    const { limits } = this.runtime.config;
    const id = randomBytes(8).toString('hex');
    const token = randomBytes(32).toString('base64url');
    const unit = new ForkedUnit(
      {
        forget: (unitId) => this.server?.forget(unitId),
        killHolder: (unitId) => this.worker?.send({ type: 'kill', id: unitId }),
        unresponsive: () => void this.worker?.kill(),
      },
      {
        id,
        token,
        maxFrameBytes: maxFrameBytes(limits.workerTransportMaxBytes),
        reapGraceMs: limits.workerReapGraceSeconds * 1000,
        ...(options.onFailure ? { onFailure: options.onFailure } : {}),
      },
    );
    if (this.ended || !this.server || !this.worker) {
      unit.reportExit(null, null, 'unit zygote not running');
      return unit;
    }
    this.units.set(id, unit);
    this.server.expect(id, unit);
    // Like a spawned worker, each unit carries its own tag (the zygote's is not passed on).
    const env = { ...options.env, [WORKER_TAG_VAR]: randomBytes(12).toString('hex') };
    this.worker.send({ type: 'spawn', id, token, socket: this.server.path, cwd: options.cwd, env });
    return unit;
  }

  /** Every unit still held ends with the zygote: its holder's parent-death signal kills it. */
  private end(why = 'unit zygote stopped'): void {
    if (this.ended) return;
    this.ended = true;
    for (const unit of this.units.values()) unit.reportExit(null, 9, why);
    this.units.clear();
    void this.server?.close().catch(() => {});
    removeDir(this.dir);
  }

  /**
   * Stops the zygote: it kills and reaps every unit it still holds, then exits. A zygote that does
   * not exit in time is killed with its whole tree.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker?.alive) {
      worker.send({ type: 'shutdown' });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([worker.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.runtime.config.limits.workerReapGraceSeconds * 1000)))]);
      clearTimeout(timer);
      if (worker.alive) await worker.kill();
    }
    this.end();
  }
}
