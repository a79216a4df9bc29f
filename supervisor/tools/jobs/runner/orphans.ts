import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { processIsAlive, signalTree } from '../../../../shared/proc.js';
import { completionFromRecord, readExitRecord } from './exit-record.js';
import type { JobDatabase } from '../store/index.js';
import { activeJobs, finishJob, type Completion, type Instance, type JobRow } from '../store/index.js';

// Jobs whose gateway process is gone (killed, crashed, restarted). Their outcome is recovered from
// the exit record the job's worker wrote beside the database when it got that far; otherwise the
// job is `unknown`: never replayed, never `succeeded`, keeping its capacity and workspace until a
// cancel has verified that nothing of it still runs. An unowned process of an unknown job still
// gets its deadline.

/** Reconciles every active job of a gateway process that no longer exists. */
export function reconcileOrphanJobs(db: JobDatabase, here: { instance: Instance; exitsDir: string; log: Logger; now: number }): void {
  for (const row of activeJobs(db)) {
    if (row.state === 'unknown' || row.instance_id === here.instance.id) continue;
    if (row.instance_pid && row.instance_start && processIsAlive(row.instance_pid, row.instance_start)) continue;
    reconcileOrphanJob(db, row, here);
  }
}

/** One orphaned job: its recovered outcome, or `unknown`. */
export function reconcileOrphanJob(db: JobDatabase, row: JobRow, here: { exitsDir: string; log: Logger; now: number }): void {
  const exitFile = join(here.exitsDir, `${row.id}.json`);
  const recovered = completionFromRecord(readExitRecord(exitFile));
  const workerAlive = row.worker_pid !== null && row.worker_start !== null && processIsAlive(row.worker_pid, row.worker_start);
  const completion: Completion = recovered
    ? { ...recovered, reason: `${recovered.reason} (recovered from the exit record after a gateway restart)` }
    : {
        state: 'unknown',
        exitCode: null,
        signal: null,
        reason: workerAlive ? 'gateway_restarted: the job process is still running unowned' : 'gateway_restarted: completion cannot be proven',
      };
  if (finishJob(db, row.id, completion, here.now)) {
    here.log.warn({ event: 'job_reconciled', job: row.id, state: completion.state, reason: completion.reason }, 'job reconciled after restart');
    rmSync(exitFile, { force: true });
  }
}

/** An unowned process of an unknown job past its deadline: TERM, then KILL once the grace has passed too. */
export function enforceOrphanDeadlines(db: JobDatabase, killGraceMs: number, now: number): void {
  for (const row of activeJobs(db)) {
    if (row.state !== 'unknown' || !row.deadline_at || now < row.deadline_at || !row.worker_pid || !row.worker_start) continue;
    if (!processIsAlive(row.worker_pid, row.worker_start)) continue;
    signalTree(row.worker_pid, now >= row.deadline_at + killGraceMs ? 'SIGKILL' : 'SIGTERM');
  }
}
