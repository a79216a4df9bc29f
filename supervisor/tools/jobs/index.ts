import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { operatorCommand } from '../../platform/operator-command.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import type { ProcessRegistry } from '../processes/process-manage/index.js';
import { JobStoreHandle, storeFailuresExplained, type JobToolContext } from './access/index.js';
import { admissionReport } from './admission/index.js';
import { jobCancelTool } from './cancel/index.js';
import { jobInputTool } from './input/index.js';
import { jobPrepareTool } from './prepare/index.js';
import type { JobRunner } from './runner/index.js';
import { jobStartTool } from './start/index.js';
import { jobStatusTool } from './status/index.js';
import { gateState, jobCounts } from './store/index.js';

// The jobs adapter: the job database, the runner, the deferred job tools, /readyz.job_admission
// and the local operator's pause.

export interface JobsAdapter extends Adapter {
  /** SIGUSR1 / SIGUSR2 on the gateway: pause and resume fresh job starts on this process. */
  setSignalPause(paused: boolean): void;
  /** Resource capability and admission state, for /readyz.job_admission. */
  admissionReport(): Record<string, unknown>;
  /** Jobs by state in the database, for /metrics (empty when the store is unavailable). */
  jobCounts(): Record<string, number>;
  runner?: JobRunner;
}

/** What jobs share with the native adapter: its worker runtime, the owners' background processes and current directories. */
export interface JobsHost {
  runtime: WorkerRuntime;
  processes: ProcessRegistry;
  /** An owner's current directory, as the terminal and the file tools resolve relative paths against it. */
  cwdFor(ownerId: string): string;
}

/** The job tools, each answering JOB_STORE_UNAVAILABLE with SQLite's reason when its write fails. */
function jobTools(ctx: JobToolContext): ToolDefinition[] {
  return [jobPrepareTool(ctx), jobStartTool(ctx), jobStatusTool(ctx), jobCancelTool(ctx), jobInputTool(ctx)].map(storeFailuresExplained);
}

/** `now` is the clock receipts, expiry and deadlines follow (the gateway's; Date.now by default). */
export function jobsAdapter(native: JobsHost, log: Logger, now: () => number = Date.now): JobsAdapter {
  const { runtime } = native;
  const { config } = runtime;
  const handle = new JobStoreHandle(runtime, native.processes, log, now);
  const unavailable = () => handle.error ?? 'job database unavailable';
  const report = (): Record<string, unknown> => {
    handle.open();
    const { db, runner, error } = handle;
    const admissionCommand = operatorCommand('hermes-mcp-admission', config.helperSearchPath).command;
    return admissionReport({ resources: runtime.resources, limits: config.limits, ...(db ? { db } : {}), ...(runner ? { runner } : {}), ...(error ? { storeError: error } : {}), admissionCommand });
  };

  return {
    name: 'jobs',
    get runner() {
      return handle.runner;
    },
    source: {
      name: 'jobs',
      tools: () => jobTools({ store: () => handle.open() ?? { unavailable: unavailable() }, roots: config.roots, limits: config.limits, guard: config, cwdFor: native.cwdFor }),
    },
    readiness: [
      {
        name: 'job_store',
        probe: () =>
          handle.open()
            ? { ready: true, status: 'ok', details: { database: config.jobsDatabase } }
            : {
                ready: false,
                status: 'unavailable',
                reason: unavailable(),
                action: `make ${dirname(config.jobsDatabase)} a directory of yours that only you can write (mode 0700), or set HERMES_MCP_JOBS_DATABASE to a file in one; then the next job call or /readyz opens it (tried again at most every ${config.limits.jobStoreRetryMaxSeconds} s), no restart needed`,
                details: { database: config.jobsDatabase },
              },
      },
    ],
    admissionReport: report,
    jobCounts: () => {
      const open = handle.open();
      return open ? jobCounts(open.db) : {};
    },
    readyFacts: () => ({ job_admission: report() }),
    setSignalPause(paused) {
      const { runner } = handle;
      if (!runner) return;
      runner.signalPaused = paused;
      log.warn({ event: paused ? 'job_admission_signal_paused' : 'job_admission_signal_resumed' }, paused ? 'fresh job starts paused by signal' : 'fresh job starts resumed by signal');
    },
    health: () => ({ jobs_active: handle.runner?.activeLocal ?? 0, job_admission_paused: Boolean((handle.db && gateState(handle.db).paused) || handle.runner?.signalPaused) }),
    close: () => handle.close(),
  };
}
