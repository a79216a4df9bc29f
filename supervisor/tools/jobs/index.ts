import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { isGatewayError } from '../../../shared/errors.js';
import type { Adapter } from '../../core/adapter.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import type { ProcessRegistry } from '../processes/process-manage/index.js';
import { gateState, jobCounts } from './job-repository.js';
import { JobRunner } from './runner.js';
import { openJobDatabase, type JobDatabase } from './database.js';
import { jobTools } from './tools.js';
import { operatorCommand } from '../../platform/operator-command.js';

// The jobs adapter: the job database, the runner, the four deferred tools, /readyz.job_admission
// and the local operator's pause. Admission capability is reported beside control-plane readiness,
// never inside it: a resource outage or a paused gate rejects new jobs without making /readyz fail
// (which would send the tunnel into a reconnect loop).

export interface JobsAdapter extends Adapter {
  /** SIGUSR1 / SIGUSR2 on the gateway: pause and resume fresh job starts on this process. */
  setSignalPause(paused: boolean): void;
  /** Resource capability and admission state, for /readyz.job_admission. */
  admissionReport(): Record<string, unknown>;
  /** Jobs by state in the database, for /metrics (empty when the store is unavailable). */
  jobCounts(): Record<string, number>;
  runner?: JobRunner;
}

/** `now` is the clock receipts, expiry and deadlines follow (the gateway's; Date.now by default). */
/** What jobs share with the native adapter: its worker runtime, the owners' background processes and current directories. */
export interface JobsHost {
  runtime: WorkerRuntime;
  processes: ProcessRegistry;
  /** An owner's current directory, as the terminal and the file tools resolve relative paths against it. */
  cwdFor(ownerId: string): string;
}

export function jobsAdapter(native: JobsHost, log: Logger, now: () => number = Date.now): JobsAdapter {
  const { runtime } = native;
  const { config } = runtime;
  let db: JobDatabase | undefined;
  let runner: JobRunner | undefined;
  let storeError: string | undefined;
  // A database that could not open (its home not made yet, a directory to fix) is tried again when
  // something needs it (a job call, /readyz, /metrics), at most every `retryMs`, doubling up to
  // jobStoreRetryMaxSeconds (real time, not the job clock): the store becomes available without a
  // restart once the cause is fixed.
  let retryMs = config.limits.jobStoreRetryMinMs;
  let nextAttempt = 0;
  let closed = false;
  const attempt = (): void => {
    let opened: JobDatabase | undefined;
    try {
      opened = openJobDatabase(config.jobsDatabase);
      runner = new JobRunner(opened, runtime, native.processes, log, now);
      db = opened;
      if (storeError !== undefined) log.info({ event: 'job_store_opened', database: config.jobsDatabase }, 'job database opened');
      storeError = undefined;
    } catch (e) {
      opened?.close();
      const first = storeError === undefined;
      // The control plane still starts; jobs answer JOB_STORE_UNAVAILABLE and /readyz says why.
      storeError = isGatewayError(e) ? e.message : `job database ${config.jobsDatabase}: ${(e as Error).message}`;
      if (first) log.error({ event: 'job_store_unavailable', reason: storeError }, 'job database unavailable');
      nextAttempt = performance.now() + retryMs;
      retryMs = Math.min(retryMs * 2, config.limits.jobStoreRetryMaxSeconds * 1000);
    }
  };
  /** The open store, trying to open it again first when it is not open and a retry is due. */
  const store = (): { db: JobDatabase; runner: JobRunner } | undefined => {
    if (!db && !closed && performance.now() >= nextAttempt) attempt();
    return db && runner ? { db, runner } : undefined;
  };
  attempt();

  const admissionReport = (): Record<string, unknown> => {
    store();
    const resources = runtime.resources;
    const resourceReady = resources.mode === 'development' || (resources.mode === 'enforced' && resources.enforcement !== 'none');
    const gate = db ? gateState(db) : undefined;
    // Unknown jobs keep their capacity until released; once they hold every slot, no job can start
    // until the operator reconciles them (their credential holders may be long gone).
    const unknownJobs = db ? (jobCounts(db).unknown ?? 0) : 0;
    const slotsHeld = unknownJobs >= config.limits.maxActiveJobs;
    const reasons = [
      ...(storeError ? [storeError] : []),
      ...(resourceReady ? [] : [resources.reason]),
      ...(gate?.paused ? [`paused by the operator${gate.reason ? ` (${gate.reason})` : ''}`] : []),
      ...(runner?.signalPaused ? ['paused by the local operator signal (SIGUSR1)'] : []),
      ...(slotsHeld ? [`${unknownJobs} unknown jobs hold all ${config.limits.maxActiveJobs} job slots`] : []),
    ];
    return {
      accepting: reasons.length === 0,
      resource_mode: resources.mode,
      enforcement: resources.enforcement,
      resource_reason: resources.reason,
      ...(resources.path ? { policy: resources.path } : {}),
      store: storeError ? 'unavailable' : 'ok',
      paused: gate?.paused ?? false,
      signal_paused: runner?.signalPaused ?? false,
      active_jobs_here: runner?.activeLocal ?? 0,
      unknown_jobs: unknownJobs,
      ...(unknownJobs > 0 ? unknownJobsAdvice(unknownJobs, config.limits.maxActiveJobs, operatorCommand('hermes-mcp-admission', config.helperSearchPath).command) : {}),
      ...(reasons.length > 0 ? { reasons } : {}),
    };
  };

  return {
    name: 'jobs',
    get runner() {
      return runner;
    },
    source: {
      name: 'jobs',
      tools: () => jobTools(() => store() ?? { unavailable: storeError ?? 'job database unavailable' }, config.roots, config.limits, config, native.cwdFor),
    },
    readiness: [
      {
        name: 'job_store',
        probe: () =>
          store()
            ? { ready: true, status: 'ok', details: { database: config.jobsDatabase } }
            : {
                ready: false,
                status: 'unavailable',
                reason: storeError ?? 'job database unavailable',
                action: `make ${dirname(config.jobsDatabase)} a directory of yours that only you can write (mode 0700), or set HERMES_MCP_JOBS_DATABASE to a file in one; then the next job call or /readyz opens it (tried again at most every ${config.limits.jobStoreRetryMaxSeconds} s), no restart needed`,
                details: { database: config.jobsDatabase },
              },
      },
    ],
    admissionReport,
    jobCounts: () => {
      const open = store();
      return open ? jobCounts(open.db) : {};
    },
    readyFacts: () => ({ job_admission: admissionReport() }),
    setSignalPause(paused) {
      if (!runner) return;
      runner.signalPaused = paused;
      log.warn({ event: paused ? 'job_admission_signal_paused' : 'job_admission_signal_resumed' }, paused ? 'fresh job starts paused by signal' : 'fresh job starts resumed by signal');
    },
    health: () => ({ jobs_active: runner?.activeLocal ?? 0, job_admission_paused: Boolean((db && gateState(db).paused) || runner?.signalPaused) }),
    async close() {
      closed = true;
      await runner?.close();
      db?.close();
    },
  };
}

/** What /readyz.job_admission says while unknown jobs hold capacity: why, and the command that frees it. */
function unknownJobsAdvice(count: number, maxActive: number, admission: string): Record<string, string> {
  return {
    unknown_jobs_reason: `${count} job(s) are unknown (their gateway was killed) and hold ${count} of ${maxActive} job slots and their workspaces until released`,
    unknown_jobs_action: `${admission} reconcile (lists them; changes nothing), then ${admission} reconcile --apply (kills what remains of each, records it cancelled); job_cancel with a recovery token releases one too`,
  };
}
