import type { Logger } from 'pino';
import type { GraphFailure, GraphProtocol, GraphSettings } from '../../shared/worker-protocol/graph.js';
import type { ReplyTo, RequestBody, RequestType } from '../../shared/worker-protocol/protocol.js';
import type { WorkerProcess } from '../spawning/worker-process.js';
import type { WorkerRuntime } from '../spawning/worker-runtime.js';

// The supervisor's handle on the one graph worker: spawned on first use (through the worker
// runtime, so it gets the workers' isolation: its own PID namespace with a parent-death signal), and
// spawned afresh on the next request after it died: a crash costs the resident sessions, never the
// adapter. Every request is bounded here as well, in case the worker itself wedges: the worker
// answers within its own budgets, so a request past `boundMs` means the worker is stuck, and it is
// killed (and replaced on the next request).

type Request = RequestType<GraphProtocol>;

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
   * Sends `body` and resolves with the worker's reply; a reply that never comes within `boundMs`,
   * or a worker that dies first, becomes a GRAPH_UPSTREAM_FAILED / GRAPH_TIMEOUT failure reply.
   */
  async request<K extends Request>(body: RequestBody<GraphProtocol, K>, boundMs: number): Promise<ReplyTo<GraphProtocol, K> | { failure: GraphFailure }> {
    if (this.closed) return { failure: { code: 'GRAPH_UPSTREAM_FAILED', message: 'the gateway is shutting down' } };
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<{ failure: GraphFailure }>((resolve) => {
      timer = setTimeout(() => {
        this.log.error({ event: 'graph_worker_stuck', request: body.type, bound_ms: boundMs }, 'graph worker did not answer within its bound; restarting it');
        void this.worker?.kill();
        resolve({ failure: { code: 'GRAPH_TIMEOUT', message: `the graph worker did not answer within ${Math.round(boundMs / 1000)} s and was restarted` } });
      }, boundMs);
    });
    const answer = this.start()
      .then((worker) => worker.request(body))
      .catch((e: unknown) => ({ failure: { code: 'GRAPH_UPSTREAM_FAILED' as const, message: `the graph worker failed (${(e as Error).message}); it is restarted on the next request` } }));
    try {
      return await Promise.race([answer, bound]);
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
