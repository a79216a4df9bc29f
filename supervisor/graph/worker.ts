import type { Logger } from 'pino';
import type { GraphFailure, GraphProtocol, GraphSettings } from '../../shared/worker-protocol/graph.js';
import type { ReplyTo, RequestBody, RequestType } from '../../shared/worker-protocol/protocol.js';
import type { WorkerProcess } from '../spawning/worker-process.js';
import type { WorkerRuntime } from '../spawning/worker-runtime.js';

// The supervisor's handle on the one graph worker: spawned on first use (through the worker
// runtime, so it gets the workers' isolation: its own PID namespace with a parent-death signal), and
// spawned afresh on the next request after it died: a crash costs the resident sessions, never the
// adapter. Every request is bounded here as well, in case the worker itself wedges: the worker
// answers within its own budgets, so a request unanswered `boundMs` after it was sent means the
// worker is stuck, and it is killed (and replaced on the next request).

type Request = RequestType<GraphProtocol>;

/** Beyond the worker's own budgets before it counts as wedged (frames, scheduling on a busy host). */
export const WORKER_SLACK_MS = 5000;

export type WorkerSettings = GraphSettings & { openTimeoutMs: number };

export class GraphWorker {
  private worker?: WorkerProcess<GraphProtocol>;
  private ready?: Promise<WorkerProcess<GraphProtocol>>;
  private closed = false;

  constructor(
    private readonly runtime: WorkerRuntime,
    private readonly settings: WorkerSettings,
    /** Added to the workers' scrubbed environment (the configured graph passthrough). */
    private readonly env: Record<string, string>,
    private readonly log: Logger,
  ) {}

  /**
   * Sends `body` and resolves with the worker's reply. A worker that cannot be started or dies
   * first becomes a GRAPH_UPSTREAM_FAILED failure; no reply within `boundMs` of sending (the
   * worker's own budgets are inside it) means the worker is wedged: it is killed, and the answer is
   * GRAPH_TIMEOUT.
   */
  async request<K extends Request>(body: RequestBody<GraphProtocol, K>, boundMs: number): Promise<ReplyTo<GraphProtocol, K> | { failure: GraphFailure }> {
    if (this.closed) return { failure: { code: 'GRAPH_UPSTREAM_FAILED', message: 'the gateway is shutting down' } };
    const failed = (e: unknown) => ({ failure: { code: 'GRAPH_UPSTREAM_FAILED' as const, message: `the graph worker failed (${(e as Error).message}); it is restarted on the next request` } });
    let worker: WorkerProcess<GraphProtocol>;
    try {
      worker = await this.start();
    } catch (e) {
      return failed(e);
    }
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<{ failure: GraphFailure }>((resolve) => {
      timer = setTimeout(() => {
        this.log.error({ event: 'graph_worker_stuck', request: body.type, bound_ms: boundMs }, 'graph worker did not answer within its bound; killing it (a new one starts on the next request)');
        void worker.kill();
        resolve({ failure: { code: 'GRAPH_TIMEOUT', message: `the graph worker did not answer within ${Math.round(boundMs / 1000)} s and was restarted` } });
      }, boundMs);
    });
    try {
      return await Promise.race([worker.request(body).catch(failed), bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Pid of the live worker, if one runs (for usage and tests). */
  get pid(): number | undefined {
    return this.worker?.alive ? this.worker.pid : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.worker?.kill();
  }

  private start(): Promise<WorkerProcess<GraphProtocol>> {
    if (this.worker?.alive && this.ready) return this.ready;
    const worker = this.runtime.spawnWorker('graph-worker', {
      env: this.env,
      onFailure: (reason) => this.log.warn({ event: 'graph_worker_failed', reason }, 'graph worker failed; it is restarted on the next request'),
    });
    this.worker = worker;
    const startMs = this.runtime.config.limits.workerStartTimeoutSeconds * 1000;
    let timer: NodeJS.Timeout | undefined;
    this.ready = Promise.race([
      worker.waitFor((m) => m.type === 'ready'),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not ready within ${startMs / 1000} s (workerStartTimeoutSeconds)`)), startMs);
      }),
    ])
      .then(() => {
        worker.send({ type: 'configure', ...this.settings });
        return worker;
      })
      .catch(async (e: unknown) => {
        await worker.kill();
        throw e;
      })
      .finally(() => clearTimeout(timer));
    return this.ready;
  }
}
