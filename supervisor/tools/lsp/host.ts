import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { descendantsOf } from '../../../shared/proc.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { LspAnswer, LspQuery, LspProtocol, RunningServer } from '../../../shared/worker-protocol/lsp.js';
import type { WorkerProcess } from '../../platform/spawning/worker-process.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import { monotonicMs } from '../../../shared/clock.js';

// The supervisor's side of the one LSP worker: started on the first query (no language server
// runs before a call needs one), restarted by the next query after it died (a query in flight when
// it died gets LSP_SERVER_FAILED), stopped on close. It mirrors the worker's running-server
// reports, so /readyz and lsp_status never wait on the worker, and a query never waits longer than
// its budget plus a margin for the worker's own answer. A worker that cannot start, or dies soon
// after starting, is remembered (`failing`) for /readyz.

/** Time past a query's budget the worker has to deliver its own LSP_TIMEOUT before this side gives up. */
const ANSWER_MARGIN_MS = 2000;
/** How long a stopping worker has to stop its servers before it is killed. */
const STOP_GRACE_MS = 5000;
/** A worker that dies on its own this soon after its start is failing, not unlucky: /readyz says so until a new one starts. */
const EARLY_DEATH_MS = 60_000;

type QueryBody = Omit<LspQuery, 'type' | 'id' | 'key'>;
export type LspSuccess = Extract<LspAnswer, { ok: true }>;

export class LspWorkerHost {
  private worker?: WorkerProcess<LspProtocol>;
  private starting?: Promise<WorkerProcess<LspProtocol>>;
  private runningServers: RunningServer[] = [];
  private closed = false;
  /** Worker starts so far (1 after the first query; more after crashes). */
  starts = 0;
  lastFailure?: string;
  /**
   * The last worker start failed, or the worker died on its own within EARLY_DEATH_MS of starting;
   * cleared when a worker starts. Read by /readyz (the worker cannot start, or keeps dying).
   */
  failing = false;

  constructor(private readonly runtime: WorkerRuntime) {}

  /** The running servers, their pids as this host sees them (the worker reports pids in its own PID namespace). */
  get running(): readonly RunningServer[] {
    const worker = this.worker;
    if (!worker?.alive || !worker.pid) return [];
    const hostPids = new Map<number, number>();
    for (const pid of descendantsOf(worker.pid)) {
      const inner = innermostPid(pid);
      if (inner !== undefined) hostPids.set(inner, pid);
    }
    return this.runningServers.map((r) => ({ ...r, pid: r.pid === null ? null : (hostPids.get(r.pid) ?? null) }));
  }

  get workerPid(): number | undefined {
    return this.worker?.alive ? this.worker.pid : undefined;
  }

  /** Runs one query; resolves with the worker's success, throws a GatewayError for every failure. */
  async query(body: QueryBody, signal: AbortSignal): Promise<LspSuccess> {
    if (this.closed) throw new GatewayError(ErrorCode.LSP_SERVER_FAILED, 'the LSP adapter is shutting down');
    const worker = await this.ensureWorker();
    const key = randomUUID();
    const reply = worker.request({ type: 'query', key, ...body });
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const answer = await Promise.race([
      reply.then(
        (a): LspAnswer | 'crashed' => a,
        () => 'crashed' as const,
      ),
      new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), body.budgetMs + ANSWER_MARGIN_MS))),
      new Promise<'aborted'>((resolve) => {
        onAbort = () => resolve('aborted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]).finally(() => {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    });
    if (answer === 'crashed') {
      throw new GatewayError(ErrorCode.LSP_SERVER_FAILED, `the LSP worker exited during the call (${worker.describeExit()}); the next call starts it again`);
    }
    if (answer === 'late' || answer === 'aborted') {
      // The worker's copy of the query is cancelled too: $/cancelRequest to the server.
      worker.send({ type: 'cancel', target: key });
      if (answer === 'aborted') throw new GatewayError(ErrorCode.CANCELLED, 'the call was cancelled');
      throw new GatewayError(ErrorCode.LSP_TIMEOUT, `the LSP worker did not answer within ${Math.round(body.budgetMs / 1000)} s`);
    }
    if (answer.ok) return answer;
    throw new GatewayError(answer.code === 'FILE_NOT_FOUND' ? ErrorCode.FILE_NOT_FOUND : ErrorCode[answer.code], answer.message);
  }

  private async ensureWorker(): Promise<WorkerProcess<LspProtocol>> {
    if (this.worker?.alive) return this.worker;
    if (!this.starting) {
      this.starting = this.start().finally(() => (this.starting = undefined));
    }
    return this.starting;
  }

  private async start(): Promise<WorkerProcess<LspProtocol>> {
    this.starts++;
    const startedAt = monotonicMs();
    const worker = this.runtime.spawnWorker('lsp-worker', {
      onFailure: (reason) => {
        this.lastFailure = reason;
        if (monotonicMs() - startedAt < EARLY_DEATH_MS) this.failing = true;
      },
    });
    worker.onFrame((message) => {
      if (message.type === 'servers') this.runningServers = message.running;
    });
    void worker.exited.then(() => {
      if (this.worker === worker) this.runningServers = [];
    });
    const timeoutMs = this.runtime.config.limits.workerStartTimeoutSeconds * 1000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        worker.waitFor((m) => m.type === 'ready'),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no ready message within ${timeoutMs / 1000} s`)), timeoutMs))),
      ]);
    } catch (e) {
      await worker.kill();
      this.lastFailure = `the LSP worker did not start: ${(e as Error).message}`;
      this.failing = true;
      throw new GatewayError(ErrorCode.LSP_SERVER_FAILED, this.lastFailure);
    } finally {
      clearTimeout(timer);
    }
    this.failing = false;
    this.worker = worker;
    return worker;
  }

  /** Stops every language server (shutdown/exit through the worker), then kills the worker. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker ?? (await this.starting?.catch(() => undefined));
    if (!worker?.alive) return;
    const stopped = worker.waitFor((m) => m.type === 'stopped').catch(() => undefined);
    worker.send({ type: 'shutdown' });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([stopped, new Promise((r) => (timer = setTimeout(r, STOP_GRACE_MS)))]);
    clearTimeout(timer);
    // Whatever the servers did, nothing of the worker's namespace survives this.
    await worker.kill();
  }
}

/** The pid `pid` has in the innermost PID namespace it belongs to (the last NSpid field), from this host's /proc. */
function innermostPid(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('NSpid:'));
    const last = line?.trim().split(/\s+/).at(-1);
    return last === undefined ? undefined : Number(last);
  } catch {
    return undefined;
  }
}
