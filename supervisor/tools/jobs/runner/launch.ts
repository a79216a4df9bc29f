import type { Logger } from 'pino';
import { descendantsOf, processStartTime } from '../../../../shared/proc.js';
import type { ResourceProfile } from '../../../../policy/resource-policy.js';
import type { ProcessRegistry, TrackedProcess } from '../../processes/process-manage/index.js';
import type { WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';
import { CgroupLimit } from '../../../platform/spawning/cgroup-limits.js';
import { scopeArgv } from '../../../platform/spawning/systemd-scope.js';
import { JOB_SLICE } from '../admission/index.js';
import { finishJob, markRunning, recordTerminalSize, type JobDatabase, type JobRow } from '../store/index.js';
import type { LocalJob } from './local-job.js';

/** What launching a job needs of the runner that admitted it. */
export interface LaunchSite {
  readonly db: JobDatabase;
  readonly runtime: WorkerRuntime;
  readonly processes: ProcessRegistry;
  readonly log: Logger;
  readonly now: () => number;
}

/**
 * Starts an admitted job's command as a background process of the registry (Hermes' terminal
 * background=true, persist_on_release=true), under a systemd scope in the jobs' slice or in a
 * direct cgroup with its profile's limits when the resource policy is enforced, and marks it
 * running. True when it runs; false when nothing ran (or it died at once): the receipt is then
 * `failed` and `local` settled.
 */
export async function launchJob(site: LaunchSite, job: JobRow, command: string, ownerId: string, local: LocalJob, onExit: (proc: TrackedProcess) => void): Promise<boolean> {
  const { db, runtime, now } = site;
  const { resources } = runtime;
  const tty = runtime.config.limits;
  const limits = resources.mode === 'enforced' ? resources.policy?.profiles[job.profile as ResourceProfile] : undefined;
  try {
    let scope: readonly string[] | undefined;
    if (limits && resources.enforcement === 'systemd') scope = scopeArgv({ unit: job.unit!, slice: JOB_SLICE, limits });
    if (limits && resources.enforcement === 'cgroup') local.cgroup = new CgroupLimit(resources.cgroupRoot!, job.unit!, limits);
    const proc = await site.processes.start(ownerId, command, job.workdir, {
      persistOnRelease: true,
      ...(scope ? { scope } : {}),
      // Moved before the command starts, so everything it spawns is born inside the cgroup.
      beforeStart: (worker) => {
        if (local.cgroup && worker.pid) for (const pid of [worker.pid, ...descendantsOf(worker.pid)]) local.cgroup.adopt(pid);
      },
      exitFile: local.exitFile,
      jobId: job.id,
      // A PTY job's output arrives rendered (workers/pty/): finished lines through onOutput like
      // any output, the live screen through onScreen. The stored tail is both, so a prompt or a
      // progress bar's last state is in the receipt, redacted and capped with the rest.
      ...(job.pty === 1 ? { pty: { cols: job.pty_cols ?? tty.ptyDefaultCols, rows: job.pty_rows ?? tty.ptyDefaultRows } } : {}),
      onResize: (size) => recordTerminalSize(db, job.id, size, now()),
      onScreen: (screen) => local.onScreen(screen),
      onOutput: (data) => local.onOutput(data),
      onExit,
    });
    local.proc = proc;
    const pid = proc.worker.pid;
    const start = pid ? processStartTime(pid) : undefined;
    markRunning(db, job.id, pid && start ? { pid, start } : undefined, now());
    site.log.info({ event: 'job_started', job: job.id, profile: job.profile, enforcement: limits ? resources.enforcement : 'none' }, 'job started');
    return true;
  } catch (e) {
    // Nothing ran (or it died at once): a failed receipt, capacity released.
    local.cgroup?.remove();
    finishJob(db, job.id, { state: 'failed', exitCode: null, signal: null, reason: `launch_failed: ${(e as Error).message}` }, now());
    local.settle();
    return false;
  }
}
