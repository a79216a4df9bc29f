import type { Logger } from 'pino';
import type { ReplyTo, RequestBody, RequestType } from '../../../shared/worker-protocol/protocol.js';
import type { WorkerProcess } from './worker-process.js';
import type { WorkerProtocols, WorkerRuntime } from './worker-runtime.js';

// The supervisor's handle on one long-lived worker that hosts upstream stdio MCP sessions (the
// graph worker, the Hermes tool server's worker): spawned on first use (through the worker runtime,
// so it gets the workers' isolation: its own PID namespace with a parent-death signal), configured
// once with its 'configure' message, and spawned afresh on the next request after it died: a crash
// costs the upstream sessions, never the adapter. Every request is bounded here as well, in case
// the worker itself wedges: the worker answers within its own budgets, so a request unanswered
// `boundMs` after it was sent means the worker is stuck, and it is killed (and replaced on the next
// request).

/** The worker kinds served this way. */
export type ResidentEntry = 'graph-worker' | 'hermes-tools-worker';

type Protocol<E extends ResidentEntry> = WorkerProtocols[E];
type Configure<E extends ResidentEntry> = Extract<Protocol<E>['toWorker'], { type: 'configure' }>;

/** Beyond the worker's own budgets before it counts as wedged (frames, scheduling on a busy host). */
export const WORKER_SLACK_MS = 5000;

export interface ResidentWorkerLabels<C extends string> {
  /** Names the worker in log events (`<name>_worker_stuck`) and messages (`the <what>`). */
  name: string;
  what: string;
  /** The failure code of a worker that could not start or died; and of one that wedged. */
  failedCode: C;
  timeoutCode: C;
}

export class ResidentWorker<E extends ResidentEntry, C extends string> {
  private worker?: WorkerProcess<Protocol<E>>;
  private ready?: Promise<WorkerProcess<Protocol<E>>>;
  private closed = false;
  /** Requests sent and not yet answered (or bounded). */
  private inflight = 0;

  constructor(
    private readonly runtime: WorkerRuntime,
    private readonly entry: E,
    private readonly configure: Configure<E>,
    /** Added to the workers' scrubbed environment. */
    private readonly env: Record<string, string>,
    private readonly log: Logger,
    private readonly labels: ResidentWorkerLabels<C>,
  ) {}

  /**
   * Sends `body` and resolves with the worker's reply. A worker that cannot be started or dies
   * first becomes a `failedCode` failure; no reply within `boundMs` of sending (the worker's own
   * budgets are inside it) means the worker is wedged: it is killed, and the answer is `timeoutCode`.
   */
  async request<K extends RequestType<Protocol<E>>>(
    body: RequestBody<Protocol<E>, K>,
    boundMs: number,
    /**
     * `spare-busy` for readiness probes: a probe past its bound while calls are in flight says so
     * and leaves the worker alone (on a busy host a slow answer is likelier than a wedge, and a kill
     * would end every session and call in flight); with nothing else in flight the worker is
     * treated as wedged, as for any request.
     */
    onBound: 'kill' | 'spare-busy' = 'kill',
  ): Promise<ReplyTo<Protocol<E>, K> | { failure: { code: C; message: string } }> {
    const { what, failedCode, timeoutCode, name } = this.labels;
    if (this.closed) return { failure: { code: failedCode, message: 'the gateway is shutting down' } };
    const failed = (e: unknown) => ({ failure: { code: failedCode, message: `the ${what} failed (${(e as Error).message}); it is restarted on the next request` } });
    let worker: WorkerProcess<Protocol<E>>;
    try {
      worker = await this.start();
    } catch (e) {
      return failed(e);
    }
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<{ failure: { code: C; message: string } }>((resolve) => {
      timer = setTimeout(() => {
        if (onBound === 'spare-busy' && this.inflight > 1) {
          resolve({ failure: { code: timeoutCode, message: `the ${what} did not answer a ${body.type} within ${Math.round(boundMs / 1000)} s` } });
          return;
        }
        this.log.error({ event: `${name}_worker_stuck`, request: body.type, bound_ms: boundMs }, `${what} did not answer within its bound; killing it (a new one starts on the next request)`);
        void worker.kill();
        resolve({ failure: { code: timeoutCode, message: `the ${what} did not answer within ${Math.round(boundMs / 1000)} s and was restarted` } });
      }, boundMs);
    });
    this.inflight++;
    try {
      return await Promise.race([worker.request(body).catch(failed), bound]);
    } finally {
      this.inflight--;
      clearTimeout(timer);
    }
  }

  /** Sends a message that has no reply to the live worker; none is started for it (a dead worker has nothing to act on). */
  notify(message: Protocol<E>['toWorker']): void {
    if (this.closed || !this.worker?.alive) return;
    try {
      this.worker.send(message);
    } catch {
      // the worker is going away: whatever the message was about goes with it
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

  private start(): Promise<WorkerProcess<Protocol<E>>> {
    if (this.worker?.alive && this.ready) return this.ready;
    const { name, what } = this.labels;
    const worker = this.runtime.spawnWorker(this.entry, {
      env: this.env,
      onFailure: (reason) => this.log.warn({ event: `${name}_worker_failed`, reason }, `${what} failed; it is restarted on the next request`),
    }) as WorkerProcess<Protocol<E>>;
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
        worker.send(this.configure);
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
