import { randomInt } from 'node:crypto';
import { sha256Hex, type AuthDatabase } from './auth-db.js';
import { SCOPE_READ } from '../../core/scopes.js';

// Pending operator approvals. Every authorization request waits on the consent page until the
// operator approves it on the host (`hermes-mcp-auth approve CODE`, with the code the page shows)
// or types the passphrase kept in a 0600 file. A request expires with its interaction (10 minutes by
// default), and 5 wrong passphrases lock it. Only the code's SHA-256 is stored; the page keeps
// showing the same code because the gateway holds it in memory for the life of the request. A
// request that ended (locked, denied, expired, granted) keeps its row, marked `closed`, until its
// interaction expires: reopening the same consent URL must not start it over with fresh tries. The
// interaction uid (which names oidc-provider's interaction record) is stored as its SHA-256 too.

const uidKey = (uid: string) => sha256Hex(uid);

/** No 0/O, 1/I/L: read off a screen and typed into a terminal. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

export function newApprovalCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** Upper-case, without separators: what is hashed. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export interface PendingApproval {
  /** The interaction's uid; in rows found by code (lookupByCode), its SHA-256: only that is stored. */
  uid: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  scope: string;
  resource: string;
  created_at: number;
  expires_at: number;
  failed_tries: number;
  approved_scope: string | null;
  /** How the request ended, once it has. */
  closed: ClosedOutcome | null;
}

export type ClosedOutcome = 'locked' | 'denied' | 'expired' | 'granted';

const COLUMNS = 'uid, client_id, client_name, redirect_uri, scope, resource, created_at, expires_at, failed_tries, approved_scope, closed';

export function recordPending(db: AuthDatabase, code: string, p: Omit<PendingApproval, 'failed_tries' | 'approved_scope' | 'closed'>): void {
  db.prepare(
    `INSERT INTO approvals (uid, code_hash, client_id, client_name, redirect_uri, scope, resource, created_at, expires_at)
     VALUES (@uid, @code_hash, @client_id, @client_name, @redirect_uri, @scope, @resource, @created_at, @expires_at)`,
  ).run({ ...p, uid: uidKey(p.uid), code_hash: sha256Hex(normalizeCode(code)) });
}

export function pendingByUid(db: AuthDatabase, uid: string): PendingApproval | undefined {
  const row = db.prepare(`SELECT ${COLUMNS} FROM approvals WHERE uid = ?`).get(uidKey(uid)) as PendingApproval | undefined;
  return row ? { ...row, uid } : undefined;
}

export function listPending(db: AuthDatabase, now: number): PendingApproval[] {
  return db.prepare(`SELECT ${COLUMNS} FROM approvals WHERE expires_at > ? AND closed IS NULL ORDER BY created_at`).all(now) as PendingApproval[];
}

export function countFailedTry(db: AuthDatabase, uid: string): number {
  db.prepare('UPDATE approvals SET failed_tries = failed_tries + 1 WHERE uid = ?').run(uidKey(uid));
  return pendingByUid(db, uid)?.failed_tries ?? 0;
}

/** Approves an open request; false when it has already ended (an approval never reopens it). */
export function markApproved(db: AuthDatabase, uid: string, scope: string): boolean {
  return approveStored(db, uidKey(uid), scope);
}

function approveStored(db: AuthDatabase, key: string, scope: string): boolean {
  return db.prepare('UPDATE approvals SET approved_scope = ? WHERE uid = ? AND closed IS NULL').run(scope, key).changes > 0;
}

/** Records how a request ended; the row stays until it expires (sweepExpired), so the uid cannot start over. */
export function close(db: AuthDatabase, uid: string, outcome: ClosedOutcome): void {
  db.prepare('UPDATE approvals SET closed = ? WHERE uid = ? AND closed IS NULL').run(outcome, uidKey(uid));
}

/** A restarted gateway lost the code it showed: the same request gets a new code, keeping its tries. */
export function reissueCode(db: AuthDatabase, uid: string, code: string): void {
  db.prepare('UPDATE approvals SET code_hash = ? WHERE uid = ?').run(sha256Hex(normalizeCode(code)), uidKey(uid));
}

export type ApproveOutcome =
  | { ok: true; approval: PendingApproval; scope: string }
  | { ok: false; reason: 'unknown_code' | 'expired' | 'locked' | 'already_approved' | 'closed' };

/**
 * The request a code belongs to, and the scope an approval would grant (`readOnly` narrows it to
 * hermes:read whatever was requested), without approving anything: what the operator is shown first.
 */
export function lookupByCode(db: AuthDatabase, code: string, options: { readOnly: boolean; maxTries: number; now: number }): ApproveOutcome {
  const row = db.prepare(`SELECT ${COLUMNS} FROM approvals WHERE code_hash = ?`).get(sha256Hex(normalizeCode(code))) as PendingApproval | undefined;
  if (!row) return { ok: false, reason: 'unknown_code' };
  if (row.expires_at <= options.now) return { ok: false, reason: 'expired' };
  if (row.failed_tries >= options.maxTries) return { ok: false, reason: 'locked' };
  if (row.approved_scope !== null) return { ok: false, reason: 'already_approved' };
  if (row.closed !== null) return { ok: false, reason: 'closed' };
  return { ok: true, approval: row, scope: options.readOnly ? SCOPE_READ : row.scope };
}

/** The operator's approval by code (the CLI, once the operator confirmed what lookupByCode showed). An unknown code changes nothing. */
export function approveByCode(db: AuthDatabase, code: string, options: { readOnly: boolean; maxTries: number; now: number }): ApproveOutcome {
  const found = lookupByCode(db, code, options);
  if (!found.ok) return found;
  // A row found by code carries the stored key (the uid's hash) as its uid.
  if (!approveStored(db, found.approval.uid, found.scope)) return { ok: false, reason: 'closed' };
  return found;
}
