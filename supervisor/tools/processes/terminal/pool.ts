import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { ExecResult } from '../../../../shared/worker-protocol/exec.js';
import type { TerminalProtocol } from '../../../../shared/worker-protocol/terminal.js';
import type { OwnerRegistry } from '../../../core/owners/owners.js';
import type { WorkerProcess } from '../../../platform/spawning/worker-process.js';
import { removeDir, type WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';

// The terminal's workers: each owner gets one long-lived terminal worker in its own PID namespace
// plus a private state directory holding its cwd and exported environment, so they persist between
// calls like Hermes' terminal does. A worker idle for ownerWorkerIdleSeconds is released long
// before its owner ends (an abandoned legacy session lives legacySessionIdleSeconds): only the
// shell goes; the state directory stays, so the owner's next command starts a fresh shell in the
// same cwd with the same exports. Where each command ended is recorded in the owner registry
// (core/owners/owners.ts), where the owner's file tools and execute_code scripts read it.

interface OwnerTerminal {
  stateDir: string;
  worker?: WorkerProcess<TerminalProtocol>;
  /** The command currently running, if any (one at a time per owner). */
  running?: symbol;
  /** Releases the worker once the owner has been idle for ownerWorkerIdleSeconds. */
  idleTimer?: NodeJS.Timeout;
}

export class TerminalPool {
  private readonly owners = new Map<string, OwnerTerminal>();
  private idleReleased = 0;

  constructor(
    private readonly runtime: WorkerRuntime,
    /** Each owner's working directory: where a command starts, and where it ended is recorded. */
    private readonly cwds: Pick<OwnerRegistry, 'cwdFor' | 'setCwd'>,
  ) {}

  get activeWorkers(): number {
    let n = 0;
    for (const o of this.owners.values()) if (o.worker?.alive) n++;
    return n;
  }

  /** Workers released because their owner was idle (its cwd and exports kept). */
  get idleReleases(): number {
    return this.idleReleased;
  }

  /** Owners whose terminal state (cwd, exports) is kept, with or without a live worker. */
  get owned(): number {
    return this.owners.size;
  }

  private armIdleRelease(owner: OwnerTerminal): void {
    clearTimeout(owner.idleTimer);
    const worker = owner.worker;
    if (!worker) return;
    owner.idleTimer = setTimeout(() => {
      owner.idleTimer = undefined;
      if (owner.running || owner.worker !== worker || !worker.alive) return;
      owner.worker = undefined;
      this.idleReleased++;
      void worker.kill();
    }, this.runtime.config.limits.ownerWorkerIdleSeconds * 1000);
    owner.idleTimer.unref();
  }

  /** Where `ownerId`'s next command starts without a workdir: where its last one ended, else the starting directory. */
  cwdOf(ownerId: string): string {
    return this.cwds.cwdFor(ownerId);
  }

  private async workerFor(owner: OwnerTerminal): Promise<WorkerProcess<TerminalProtocol>> {
    if (owner.worker?.alive) return owner.worker;
    const worker = this.runtime.spawnWorker('terminal-worker');
    owner.worker = worker;
    await worker.waitFor((f) => f.type === 'ready');
    return worker;
  }

  /**
   * Runs `command` in the owner's worker, in `workdir` or the owner's cwd, and answers with its
   * result and where it started. Where it ended becomes the owner's cwd, unless `recordCwd` is
   * false (Hermes' per-call workdir). `agentEnvironment`: Hermes' AI_AGENT/HERMES_AGENT/GIT_PAGER/
   * PAGER exports.
   */
  async run(
    ownerId: string,
    command: string,
    options: { timeoutSeconds: number; workdir?: string; recordCwd?: boolean; agentEnvironment?: boolean; signal: AbortSignal },
  ): Promise<ExecResult & { startedIn: string }> {
    let owner = this.owners.get(ownerId);
    if (!owner) {
      owner = { stateDir: this.runtime.privateDir('terminal') };
      this.owners.set(ownerId, owner);
    }
    if (owner.running) {
      throw new GatewayError(ErrorCode.BUSY, 'this session already has a terminal command running; terminal runs one foreground command at a time per session');
    }
    const run = Symbol('terminal command');
    owner.running = run;
    clearTimeout(owner.idleTimer);
    const current = owner;
    try {
      const worker = await this.workerFor(owner);
      // A client that goes away takes its command with it: the worker (and with it the whole
      // namespace) is killed; the owner's cwd/env snapshot survives. The owner is free at once:
      // its next call gets a fresh worker instead of waiting for this one to finish dying.
      const onAbort = () => {
        if (current.worker === worker) current.worker = undefined;
        if (current.running === run) current.running = undefined;
        void worker.kill();
      };
      options.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const startedIn = options.workdir ?? this.cwds.cwdFor(ownerId);
        const outcome = await worker
          .request({
            type: 'exec',
            command,
            cwd: startedIn,
            ...(options.agentEnvironment ? { agentEnvironment: true } : {}),
            timeoutMs: options.timeoutSeconds * 1000,
            stateDir: owner.stateDir,
            maxOutputBytes: this.runtime.config.limits.workerTransportMaxBytes,
          })
          .catch((e: Error) => {
            if (options.signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'the client disconnected; the command and everything it started were killed');
            throw new GatewayError(ErrorCode.WORKER_FAILED, `terminal worker failed: ${e.message}`);
          });
        // Only a second command while one runs is refused by the worker, and `running` above
        // never lets one through; should it happen anyway, it is the worker's failure, not output.
        if ('error' in outcome) throw new GatewayError(ErrorCode.WORKER_FAILED, `terminal worker failed: ${outcome.error}`);
        // Every result carries where the command ended; recording it spares file and
        // execute_code calls a synchronous read of the state directory.
        if (outcome.cwd && options.recordCwd !== false && this.owners.get(ownerId) === current) this.cwds.setCwd(ownerId, outcome.cwd);
        return { ...outcome, startedIn };
      } finally {
        options.signal.removeEventListener('abort', onAbort);
      }
    } finally {
      if (current.running === run) current.running = undefined;
      if (!current.running && this.owners.get(ownerId) === current) this.armIdleRelease(current);
    }
  }

  /** Release hook: the owner ended; kill its worker and remove its cwd/env snapshot (the registry forgets its cwd). */
  async release(ownerId: string): Promise<void> {
    const owner = this.owners.get(ownerId);
    if (!owner) return;
    this.owners.delete(ownerId);
    clearTimeout(owner.idleTimer);
    await owner.worker?.kill();
    removeDir(owner.stateDir);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.owners.keys()].map((id) => this.release(id)));
  }
}
