import { randomBytes } from 'node:crypto';
import { clientToken } from '../../../../shared/tokens.js';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { isInside } from '../../../platform/roots.js';
import type { JobDatabase } from './database.js';
import { ACTIVE_SQL, hashSecret, sameHash, stmt, type Instance, type JobRow, type JobState } from './rows.js';
import { expireJob } from './receipts.js';

// A job's way in: prepare freezes a request, the credential authorizes every later call, and
// admission decides, under the write lock, whether a prepared job may start now.

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
      const token = clientToken('hjr_', 32);
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
