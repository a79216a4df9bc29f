import type { JobDatabase } from './database.js';
import { ACTIVE_SQL, FINAL_SQL, stmt, type Instance, type JobState } from './rows.js';

// What happens to an admitted job's receipt: it runs, its output and window size are recorded, it
// ends (once: a final receipt is never rewritten), a cancel is asked for, and old receipts go.

export function markRunning(db: JobDatabase, id: string, worker: { pid: number; start: string } | undefined, now: number): void {
  stmt(db, `UPDATE jobs SET state = 'running', worker_pid = ?, worker_start = ?, updated_at = ? WHERE id = ? AND state = 'starting'`).run(worker?.pid ?? null, worker?.start ?? null, now, id);
}

/** The receipt's output so far: its tail, the tail's styled twin (or null), the byte count, and whether the tail is only the end. */
export interface ReceiptOutput {
  tail: string;
  styled: string | null;
  bytes: number;
  truncated: boolean;
}

export function recordOutput(db: JobDatabase, id: string, output: ReceiptOutput, now: number): void {
  stmt(db, 'UPDATE jobs SET output_tail = ?, output_styled = ?, output_bytes = ?, output_truncated = ?, updated_at = ? WHERE id = ?').run(
    output.tail,
    output.styled,
    output.bytes,
    output.truncated ? 1 : 0,
    now,
    id,
  );
}

/** A PTY job's window after a resize: job_status reports the size the program sees now. */
export function recordTerminalSize(db: JobDatabase, id: string, size: { cols: number; rows: number }, now: number): void {
  stmt(db, 'UPDATE jobs SET pty_cols = ?, pty_rows = ?, updated_at = ? WHERE id = ?').run(size.cols, size.rows, now, id);
}

export interface Completion {
  state: Extract<JobState, 'succeeded' | 'failed' | 'cancelled' | 'timed_out' | 'unknown'>;
  exitCode: number | null;
  signal: string | null;
  reason: string;
  /** The output, when this process saw it; absent, the receipt keeps what it has. */
  output?: ReceiptOutput;
}

/** Records how an active job ended. Only an active job changes: a final receipt is never rewritten. */
export function finishJob(db: JobDatabase, id: string, c: Completion, now: number): boolean {
  const final = c.state !== 'unknown';
  const res = db
    .prepare(
      `UPDATE jobs SET state = ?, exit_code = ?, signal = ?, termination_reason = ?, finished_at = ?,
         output_tail = coalesce(?, output_tail), output_styled = CASE WHEN ? THEN ? ELSE output_styled END,
         output_bytes = coalesce(?, output_bytes), output_truncated = coalesce(?, output_truncated), updated_at = ?
       WHERE id = ? AND state IN ${ACTIVE_SQL}`,
    )
    .run(
      c.state,
      c.exitCode,
      c.signal,
      c.reason,
      final ? now : null,
      c.output?.tail ?? null,
      c.output ? 1 : 0,
      c.output?.styled ?? null,
      c.output?.bytes ?? null,
      c.output ? (c.output.truncated ? 1 : 0) : null,
      now,
      id,
    );
  return res.changes > 0;
}

export function requestCancel(db: JobDatabase, id: string, now: number): void {
  stmt(db, 'UPDATE jobs SET cancel_requested = 1, updated_at = ? WHERE id = ?').run(now, id);
}

/** The jobs `instance` runs whose cancel was asked for through another gateway process (requestCancel). */
export function cancelRequestsFor(db: JobDatabase, instance: Instance): Set<string> {
  const rows = stmt(db, `SELECT id FROM jobs WHERE cancel_requested = 1 AND instance_id = ? AND state IN ('starting','running')`).all(instance.id) as Array<{ id: string }>;
  return new Set(rows.map((r) => r.id));
}

/** A prepared job cancelled before it ever started: final at once, payload gone. */
export function cancelPrepared(db: JobDatabase, id: string, now: number): boolean {
  return stmt(db, `UPDATE jobs SET state = 'cancelled', command = NULL, termination_reason = 'cancelled_before_start', finished_at = ?, updated_at = ? WHERE id = ? AND state = 'prepared'`).run(now, now, id).changes > 0;
}

/** An unused preparation past its time: final, payload gone. */
export function expireJob(db: JobDatabase, id: string, now: number): void {
  stmt(db, `UPDATE jobs SET state = 'expired', command = NULL, finished_at = ?, updated_at = ? WHERE id = ? AND state = 'prepared'`).run(now, now, id);
}

/** Housekeeping: unused preparations expire (their payload deleted), old receipts go. */
export function sweepJobs(db: JobDatabase, retentionMs: number, now: number): { expired: number; deleted: number } {
  const expired = stmt(db, `UPDATE jobs SET state = 'expired', command = NULL, finished_at = ?, updated_at = ? WHERE state = 'prepared' AND expires_at <= ?`).run(now, now, now).changes;
  const deleted = stmt(db, `DELETE FROM jobs WHERE state IN ${FINAL_SQL} AND finished_at <= ?`).run(now - retentionMs).changes;
  return { expired, deleted };
}
