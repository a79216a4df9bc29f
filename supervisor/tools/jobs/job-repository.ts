import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { isInside } from '../../platform/roots.js';
import type { Statement } from 'better-sqlite3';
import type { JobDatabase } from './database.js';

// Every state change of a job, as SQL against the shared job database. Nothing here keeps state in
// memory: two gateway processes (and the operator CLI) may act on one database at once, and each
// decision that depends on other jobs (admission, the operator gate) happens inside one
// `BEGIN IMMEDIATE` transaction, which holds SQLite's write lock from its first statement, so two
// racing admissions are strictly ordered and the second sees the first's result.

type JobState = 'prepared' | 'starting' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out' | 'expired' | 'unknown';
/** States that hold capacity and lock their workspace. `unknown` keeps both until proven over. */
const ACTIVE_STATES: readonly JobState[] = ['starting', 'running', 'unknown'];
const FINAL_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'timed_out', 'expired'];
const sqlList = (states: readonly JobState[]) => `(${states.map((st) => `'${st}'`).join(',')})`;
const ACTIVE_SQL = sqlList(ACTIVE_STATES);
const FINAL_SQL = sqlList(FINAL_STATES);

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

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when one directory is the other or lies inside it. */
export function nestedPaths(a: string, b: string): boolean {
  return isInside(a, b) || isInside(b, a);
}

interface PrepareRequest {
  command: string;
  workdir: string;
  maxRuntime: number;
  profile: string;
  heavy: boolean;
  memoryReservation: number;
  idempotencyKey?: string;
  /** The owner (capability or legacy session) that prepared it. */
  preparedBy: string;
  /** Run on a pseudo-terminal of this size. */
  terminal?: { cols: number; rows: number };
}

interface PrepareResult {
  job_id: string;
  state: JobState;
  /** Only on a fresh preparation: a duplicate never returns the earlier token. */
  recovery_token?: string;
  duplicate: boolean;
}

function requestHash(r: PrepareRequest): string {
  // A plain request hashes as it always has, so keys recorded before PTY jobs existed still match.
  const terminal = r.terminal ? [r.terminal.cols, r.terminal.rows] : [];
  return hashSecret(JSON.stringify([r.command, r.workdir, r.maxRuntime, r.profile, ...terminal]));
}

/** Freezes a request. Runs nothing, reserves nothing, locks no workspace. */
export function prepareJob(db: JobDatabase, req: PrepareRequest, rules: { maxPrepared: number; ttlMs: number }, now: number): PrepareResult {
  return db
    .transaction((): PrepareResult => {
      if (req.idempotencyKey !== undefined) {
        const earlier = stmt(db, 'SELECT id, state, request_hash FROM jobs WHERE idempotency_key = ?').get(req.idempotencyKey) as Pick<JobRow, 'id' | 'state' | 'request_hash'> | undefined;
        if (earlier) {
          if (earlier.request_hash !== requestHash(req)) {
            throw new GatewayError(ErrorCode.JOB_IDEMPOTENCY_CONFLICT, `idempotency_key was already used for a different request (job ${earlier.id}); use a new random key for a new request`, { job_id: earlier.id });
          }
          return { job_id: earlier.id, state: earlier.state, duplicate: true };
        }
      }
      const waiting = (stmt(db, `SELECT count(*) AS n FROM jobs WHERE state = 'prepared'`).get() as { n: number }).n;
      if (waiting >= rules.maxPrepared) {
        throw new GatewayError(ErrorCode.JOB_PREPARE_LIMIT, `${waiting} unused preparations are waiting (limit ${rules.maxPrepared}); start or let them expire first`);
      }
      const id = `job_${randomBytes(12).toString('hex')}`;
      const token = `hjr_${randomBytes(32).toString('base64url')}`;
      stmt(db, 
        `INSERT INTO jobs (id, token_hash, request_hash, idempotency_key, prepared_by, command, workdir, max_runtime, profile, heavy, memory_reservation, state, created_at, expires_at, updated_at, pty, pty_cols, pty_rows)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'prepared', ?, ?, ?, ?, ?, ?)`,
      ).run(id, hashSecret(token), requestHash(req), req.idempotencyKey ?? null, req.preparedBy, req.command, req.workdir, req.maxRuntime, req.profile, req.heavy ? 1 : 0, req.memoryReservation, now, now + rules.ttlMs, now, req.terminal ? 1 : 0, req.terminal?.cols ?? null, req.terminal?.rows ?? null);
      return { job_id: id, state: 'prepared', recovery_token: token, duplicate: false };
    })
    .immediate();
}

/** The job `id` if `token` is its recovery credential; the same JOB_NOT_FOUND for a wrong token. */
export function authorizedJob(db: JobDatabase, id: string, token: string): JobRow {
  const row = stmt(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
  if (!row || !sameHash(row.token_hash, hashSecret(token))) {
    throw new GatewayError(ErrorCode.JOB_NOT_FOUND, `no job ${id} for this recovery_token (the id alone grants nothing; receipts are kept 7 days)`);
  }
  return row;
}

export interface AdmissionRules {
  /** The memory a job of `profile` reserves under the policy in force now (default: what prepare stored). */
  reservationFor?: (profile: string) => number;
  maxActive: number;
  maxPerSession: number;
  /** Heavy jobs active at once (Infinity in development mode). */
  maxHeavy: number;
  /** Sum of memory reservations active jobs may hold (Infinity in development mode). */
  memoryBudget: number;
}

export interface Instance {
  id: string;
  pid: number;
  start: string;
}

type AdmitResult = { admitted: true; job: JobRow; command: string } | { admitted: false; job: JobRow };

/**
 * Admits a prepared job for `sessionId`, atomically: the operator gate, the global and per-session
 * quotas, workspace nesting, heavy jobs and memory reservations are all checked against the rows
 * as they are under the write lock. An admitted job becomes `starting` and its command leaves the
 * database (it is returned to the caller, who launches it). A job that is already past `prepared`
 * is returned as it is: an authorized repeat start never relaunches.
 */
export function admitJob(db: JobDatabase, args: { id: string; token: string; sessionId: string; instance: Instance; unit: string }, rules: AdmissionRules, now: number): AdmitResult {
  const result = db
    .transaction((): AdmitResult | 'expired' => {
      const job = authorizedJob(db, args.id, args.token);
      if (job.state === 'prepared' && job.expires_at !== null && job.expires_at <= now) {
        // Committed, then reported: throwing here would roll the expiry (and the payload's deletion) back.
        expireJob(db, job.id, now);
        return 'expired';
      }
      if (job.state === 'expired') return 'expired';
      if (job.state !== 'prepared') return { admitted: false, job };
      const gate = stmt(db, 'SELECT paused, reason FROM admission_gate WHERE id = 1').get() as { paused: number; reason: string | null };
      if (gate.paused) throw new GatewayError(ErrorCode.JOB_ADMISSION_PAUSED, `the operator paused job admission${gate.reason ? ` (${gate.reason})` : ''}; the prepared job stays valid, start it later`);
      const active = stmt(db, `SELECT id, session_id, workdir, heavy, memory_reservation FROM jobs WHERE state IN ${ACTIVE_SQL}`).all() as Array<Pick<JobRow, 'id' | 'session_id' | 'workdir' | 'heavy' | 'memory_reservation'>>;
      if (active.length >= rules.maxActive) {
        throw new GatewayError(ErrorCode.JOB_QUOTA_EXCEEDED, `${active.length} jobs are active (limit ${rules.maxActive} on this host); wait for one to finish, then start again`);
      }
      const mine = active.filter((a) => a.session_id === args.sessionId).length;
      if (mine >= rules.maxPerSession) {
        throw new GatewayError(ErrorCode.JOB_SESSION_QUOTA_EXCEEDED, `this session has ${mine} active jobs (limit ${rules.maxPerSession} per session)`);
      }
      const clash = active.find((a) => nestedPaths(a.workdir, job.workdir));
      if (clash) {
        throw new GatewayError(ErrorCode.JOB_WORKSPACE_BUSY, `another active job works in ${clash.workdir}, the same as or nested with ${job.workdir}; use a separate git worktree per job`);
      }
      const heavy = job.profile === 'heavy';
      const reservation = rules.reservationFor ? rules.reservationFor(job.profile) : job.memory_reservation;
      if (heavy && active.filter((a) => a.heavy).length >= rules.maxHeavy) {
        throw new GatewayError(ErrorCode.JOB_HEAVY_BUSY, `a heavy job is already active (limit ${rules.maxHeavy}); wait, or prepare with resource_profile "light"`);
      }
      const reserved = active.reduce((sum, a) => sum + a.memory_reservation, 0);
      if (reserved + reservation > rules.memoryBudget) {
        throw new GatewayError(ErrorCode.JOB_MEMORY_UNAVAILABLE, `active jobs reserve ${reserved} bytes of the ${rules.memoryBudget}-byte job memory budget; this job needs ${reservation}`);
      }
      stmt(db, 
        `UPDATE jobs SET state = 'starting', command = NULL, session_id = ?, started_at = ?, deadline_at = ?, expires_at = NULL,
           heavy = ?, memory_reservation = ?, instance_id = ?, instance_pid = ?, instance_start = ?, unit = ?, updated_at = ? WHERE id = ?`,
      ).run(args.sessionId, now, now + job.max_runtime * 1000, heavy ? 1 : 0, reservation, args.instance.id, args.instance.pid, args.instance.start, args.unit, now, job.id);
      const admitted = stmt(db, 'SELECT * FROM jobs WHERE id = ?').get(job.id) as JobRow;
      return { admitted: true, job: admitted, command: job.command ?? '' };
    })
    .immediate();
  if (result === 'expired') throw new GatewayError(ErrorCode.JOB_EXPIRED, `job ${args.id} was prepared but not started in time; prepare it again with a new idempotency key`);
  return result;
}

export function getJob(db: JobDatabase, id: string): JobRow | undefined {
  return stmt(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
}

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

/** A prepared job cancelled before it ever started: final at once, payload gone. */
export function cancelPrepared(db: JobDatabase, id: string, now: number): boolean {
  return stmt(db, `UPDATE jobs SET state = 'cancelled', command = NULL, termination_reason = 'cancelled_before_start', finished_at = ?, updated_at = ? WHERE id = ? AND state = 'prepared'`).run(now, now, id).changes > 0;
}

function expireJob(db: JobDatabase, id: string, now: number): void {
  stmt(db, `UPDATE jobs SET state = 'expired', command = NULL, finished_at = ?, updated_at = ? WHERE id = ? AND state = 'prepared'`).run(now, now, id);
}

/** Housekeeping: unused preparations expire (their payload deleted), old receipts go. */
export function sweepJobs(db: JobDatabase, retentionMs: number, now: number): { expired: number; deleted: number } {
  const expired = stmt(db, `UPDATE jobs SET state = 'expired', command = NULL, finished_at = ?, updated_at = ? WHERE state = 'prepared' AND expires_at <= ?`).run(now, now, now).changes;
  const deleted = stmt(db, `DELETE FROM jobs WHERE state IN ${FINAL_SQL} AND finished_at <= ?`).run(now - retentionMs).changes;
  return { expired, deleted };
}

export function activeJobs(db: JobDatabase): JobRow[] {
  return stmt(db, `SELECT * FROM jobs WHERE state IN ${ACTIVE_SQL}`).all() as JobRow[];
}

export function jobCounts(db: JobDatabase): Record<string, number> {
  const rows = stmt(db, 'SELECT state, count(*) AS n FROM jobs GROUP BY state').all() as Array<{ state: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

// ---- the operator gate -----------------------------------------------------------------------

interface GateState {
  paused: boolean;
  paused_at: number | null;
  reason: string | null;
}

export function gateState(db: JobDatabase): GateState {
  const g = stmt(db, 'SELECT paused, paused_at, reason FROM admission_gate WHERE id = 1').get() as { paused: number; paused_at: number | null; reason: string | null };
  return { paused: g.paused === 1, paused_at: g.paused_at, reason: g.reason };
}

/**
 * Claims the gate for the operator holding `ownerToken` (stored as its hash). Claiming again with
 * the same token is fine (a retried drain); a pause held by another token is refused.
 */
export function pauseAdmission(db: JobDatabase, ownerToken: string, reason: string, now: number): void {
  db.transaction(() => {
    const g = stmt(db, 'SELECT paused, owner_hash FROM admission_gate WHERE id = 1').get() as { paused: number; owner_hash: string | null };
    const mine = hashSecret(ownerToken);
    if (g.paused && g.owner_hash && !sameHash(g.owner_hash, mine)) {
      throw new GatewayError(ErrorCode.ADMISSION_GATE_HELD, 'admission is already paused by another operator token; only that token can resume it');
    }
    stmt(db, 'UPDATE admission_gate SET paused = 1, owner_hash = ?, paused_at = ?, reason = ? WHERE id = 1').run(mine, now, reason);
  }).immediate();
}

/** Releases the gate; only the token that paused it may. Returns false when it was not paused. */
export function resumeAdmission(db: JobDatabase, ownerToken: string): boolean {
  return db
    .transaction(() => {
      const g = stmt(db, 'SELECT paused, owner_hash FROM admission_gate WHERE id = 1').get() as { paused: number; owner_hash: string | null };
      if (!g.paused) return false;
      if (!g.owner_hash || !sameHash(g.owner_hash, hashSecret(ownerToken))) {
        throw new GatewayError(ErrorCode.ADMISSION_GATE_HELD, 'admission was paused by another operator token; it alone can resume it');
      }
      stmt(db, 'UPDATE admission_gate SET paused = 0, owner_hash = NULL, paused_at = NULL, reason = NULL WHERE id = 1').run();
      return true;
    })
    .immediate();
}

/** The operator owner token's shape: 32–128 safe characters. */
/** One gateway process's SIGUSR1 pause of fresh job starts. */
interface SignalPause {
  pid: number;
  paused_at: number;
}

/** Records (or clears) this process's signal pause. */
export function recordSignalPause(db: JobDatabase, instance: Instance, paused: boolean, now: number): void {
  if (paused) {
    stmt(db, 'INSERT OR REPLACE INTO signal_pauses (instance_id, pid, instance_start, paused_at) VALUES (?, ?, ?, ?)').run(instance.id, instance.pid, instance.start, now);
  } else {
    stmt(db, 'DELETE FROM signal_pauses WHERE instance_id = ?').run(instance.id);
  }
}

/** The signal pauses of gateway processes still alive (a dead process's row is dropped). */
export function liveSignalPauses(db: JobDatabase, isAlive: (pid: number, start: string) => boolean): SignalPause[] {
  const rows = stmt(db, 'SELECT instance_id, pid, instance_start, paused_at FROM signal_pauses ORDER BY paused_at').all() as Array<{ instance_id: string; pid: number; instance_start: string; paused_at: number }>;
  const live: SignalPause[] = [];
  for (const row of rows) {
    if (isAlive(row.pid, row.instance_start)) live.push({ pid: row.pid, paused_at: row.paused_at });
    else stmt(db, 'DELETE FROM signal_pauses WHERE instance_id = ?').run(row.instance_id);
  }
  return live;
}

export const OWNER_TOKEN_PATTERN = /^[A-Za-z0-9._~+\/=-]{32,128}$/;
