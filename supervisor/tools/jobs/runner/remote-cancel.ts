import { setTimeout as delay } from 'node:timers/promises';
import { releaseUnknownJob } from '../admission/index.js';
import { getJob, isFinal, requestCancel, type JobDatabase, type JobRow } from '../store/index.js';
import { monotonicMs } from '../../../../shared/clock.js';

// Cancelling a job this gateway process does not run: another live process runs it, or nothing
// does any more and it is (or becomes) `unknown`.

/**
 * Cancels a job another live gateway process runs: the request is recorded in the database, where
 * that process's maintenance loop finds it and stops the job (TERM, then KILL after the grace
 * period); the receipt is read back until it is final or the grace (plus a margin) has passed.
 */
export async function cancelThroughDatabase(db: JobDatabase, row: JobRow, killGraceSeconds: number, now: number): Promise<JobRow> {
  requestCancel(db, row.id, now);
  const until = monotonicMs() + (killGraceSeconds + 5) * 1000;
  let current = row;
  while (!isFinal(current.state) && monotonicMs() < until) {
    await delay(250);
    current = getJob(db, row.id) ?? current;
  }
  return current;
}

/**
 * An `unknown` job is released only with evidence: any process left of it is killed first, and
 * only when none remains does it become `cancelled` (never `succeeded`).
 */
export async function cancelUnknown(db: JobDatabase, id: string, now: number, cgroupRoot: string | undefined): Promise<JobRow> {
  const { row } = await releaseUnknownJob(db, id, { now, reason: 'cancelled_after_unknown: no process of the job remains', ...(cgroupRoot ? { cgroupRoot } : {}) });
  return row;
}
