import type { Logger } from 'pino';
import { isGatewayError } from '../../../../shared/errors.js';
import type { ProcessRegistry } from '../../processes/process-manage/index.js';
import type { WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';
import { JobRunner } from '../runner/index.js';
import { openJobDatabase, type JobDatabase } from '../store/index.js';

/**
 * The job database and its runner, or why they are not open. A database that could not open (its
 * home not made yet, a directory to fix) is tried again when something needs it (a job call,
 * /readyz, /metrics), at most every `retryMs`, doubling up to jobStoreRetryMaxSeconds (real time,
 * not the job clock): the store becomes available without a restart once the cause is fixed. The
 * control plane starts either way; jobs answer JOB_STORE_UNAVAILABLE and /readyz says why.
 */
export class JobStoreHandle {
  db?: JobDatabase;
  runner?: JobRunner;
  /** Why the store is not open (undefined while it is). */
  error?: string;
  private retryMs: number;
  private nextAttempt = 0;
  private closed = false;

  constructor(
    private readonly runtime: WorkerRuntime,
    private readonly processes: ProcessRegistry,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {
    this.retryMs = runtime.config.limits.jobStoreRetryMinMs;
    this.attempt();
  }

  /** The open store, trying to open it again first when it is not open and a retry is due. */
  open(): { db: JobDatabase; runner: JobRunner } | undefined {
    if (!this.db && !this.closed && performance.now() >= this.nextAttempt) this.attempt();
    return this.db && this.runner ? { db: this.db, runner: this.runner } : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.runner?.close();
    this.db?.close();
  }

  private attempt(): void {
    const { config } = this.runtime;
    let opened: JobDatabase | undefined;
    try {
      opened = openJobDatabase(config.jobsDatabase);
      this.runner = new JobRunner(opened, this.runtime, this.processes, this.log, this.now);
      this.db = opened;
      if (this.error !== undefined) this.log.info({ event: 'job_store_opened', database: config.jobsDatabase }, 'job database opened');
      this.error = undefined;
    } catch (e) {
      opened?.close();
      const first = this.error === undefined;
      this.error = isGatewayError(e) ? e.message : `job database ${config.jobsDatabase}: ${(e as Error).message}`;
      if (first) this.log.error({ event: 'job_store_unavailable', reason: this.error }, 'job database unavailable');
      this.nextAttempt = performance.now() + this.retryMs;
      this.retryMs = Math.min(this.retryMs * 2, config.limits.jobStoreRetryMaxSeconds * 1000);
    }
  }
}
