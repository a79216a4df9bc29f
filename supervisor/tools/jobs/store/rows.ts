import { createHash, timingSafeEqual } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { JobDatabase } from './database.js';

// A job's row and the reads every part of the store shares. Nothing here keeps state in memory:
// two gateway processes (and the operator CLI) may act on one database at once, and each decision
// that depends on other jobs (admission, the operator gate) happens inside one `BEGIN IMMEDIATE`
// transaction, which holds SQLite's write lock from its first statement, so two racing admissions
// are strictly ordered and the second sees the first's result.

export type JobState = 'prepared' | 'starting' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out' | 'expired' | 'unknown';
/** States that hold capacity and lock their workspace. `unknown` keeps both until proven over. */
const ACTIVE_STATES: readonly JobState[] = ['starting', 'running', 'unknown'];
const FINAL_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'timed_out', 'expired'];
const sqlList = (states: readonly JobState[]) => `(${states.map((st) => `'${st}'`).join(',')})`;
export const ACTIVE_SQL = sqlList(ACTIVE_STATES);
export const FINAL_SQL = sqlList(FINAL_STATES);

export function isFinal(state: JobState): boolean {
  return FINAL_STATES.includes(state);
}

export interface JobRow {
  id: string;
  token_hash: string;
  request_hash: string;
  idempotency_key: string | null;
  prepared_by: string;
  session_id: string | null;
  command: string | null;
  workdir: string;
  max_runtime: number;
  profile: string;
  heavy: number;
  memory_reservation: number;
  state: JobState;
  created_at: number;
  expires_at: number | null;
  started_at: number | null;
  deadline_at: number | null;
  finished_at: number | null;
  exit_code: number | null;
  signal: string | null;
  termination_reason: string | null;
  output_tail: string;
  /** output_tail with its colours (SGR sequences), or null (database.ts migration 4). */
  output_styled: string | null;
  /** 1 when output_tail is only the end of the output; null on rows older than migration 4. */
  output_truncated: number | null;
  output_bytes: number;
  instance_id: string | null;
  instance_pid: number | null;
  instance_start: string | null;
  worker_pid: number | null;
  worker_start: string | null;
  unit: string | null;
  cancel_requested: number;
  updated_at: number;
  /** 1 when the command runs on a pseudo-terminal of pty_cols × pty_rows. */
  pty: number;
  pty_cols: number | null;
  pty_rows: number | null;
}

// Statements are compiled once per connection: admission and the maintenance loop run these
// thousands of times.
const statements = new WeakMap<JobDatabase, Map<string, Statement>>();
export function stmt(db: JobDatabase, sql: string): Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let s = cache.get(sql);
  if (!s) cache.set(sql, (s = db.prepare(sql)));
  return s;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A gateway process, as it stamps the jobs it launches: a random id, its pid and its start time. */
export interface Instance {
  id: string;
  pid: number;
  start: string;
}

export function getJob(db: JobDatabase, id: string): JobRow | undefined {
  return stmt(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
}

export function activeJobs(db: JobDatabase): JobRow[] {
  return stmt(db, `SELECT * FROM jobs WHERE state IN ${ACTIVE_SQL}`).all() as JobRow[];
}

export function jobCounts(db: JobDatabase): Record<string, number> {
  const rows = stmt(db, 'SELECT state, count(*) AS n FROM jobs GROUP BY state').all() as Array<{ state: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}
