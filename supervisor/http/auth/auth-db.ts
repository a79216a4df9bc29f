import Database from 'better-sqlite3';
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { createHash } from 'node:crypto';

// One SQLite file (0600) for everything authentication keeps: the authorization server's records
// (clients, grants, codes, tokens), static bearer tokens, pending operator approvals and the
// server's own keys. The gateway and the operator CLI (hermes-mcp-auth) open the same file; WAL and
// a busy timeout let both work at once. Secrets are never stored as themselves: a token, code or
// record id is kept as its SHA-256 (hex), so a copy of this file grants nothing.

export type AuthDatabase = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS oidc (
  model TEXT NOT NULL,
  id_hash TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid_hash TEXT,
  client_id TEXT,
  expires_at INTEGER,
  consumed_at INTEGER,
  PRIMARY KEY (model, id_hash)
);
CREATE INDEX IF NOT EXISTS oidc_grant ON oidc (grant_id);
CREATE INDEX IF NOT EXISTS oidc_uid ON oidc (uid_hash);
CREATE INDEX IF NOT EXISTS oidc_client ON oidc (client_id);
CREATE TABLE IF NOT EXISTS static_tokens (
  name TEXT PRIMARY KEY,
  digest TEXT NOT NULL UNIQUE,
  scope TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS approvals (
  uid TEXT PRIMARY KEY,
  code_hash TEXT NOT NULL UNIQUE,
  client_id TEXT NOT NULL,
  client_name TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  scope TEXT NOT NULL,
  resource TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  failed_tries INTEGER NOT NULL DEFAULT 0,
  approved_scope TEXT,
  closed TEXT
);
CREATE TABLE IF NOT EXISTS server_keys (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Opens (creating 0600, and its directory 0700) the authentication database. */
export function openAuthDatabase(path: string): AuthDatabase {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Created by us so it is 0600 from the first byte; SQLite gives its -wal and -shm files the same mode.
  closeSync(openSync(path, constants.O_CREAT | constants.O_RDWR | constants.O_NOFOLLOW, 0o600));
  chmodSync(path, 0o600);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.pragma('secure_delete = ON');
  db.exec(SCHEMA);
  // A database made before approvals remembered how a request ended: add the column.
  if (!(db.prepare('PRAGMA table_info(approvals)').all() as Array<{ name: string }>).some((c) => c.name === 'closed')) db.exec('ALTER TABLE approvals ADD COLUMN closed TEXT');
  return db;
}

/**
 * The authentication database opened read-only, for the commands that only list (never creating
 * it, its directory or its tables): undefined when it does not exist yet, which means "none".
 */
export function openAuthDatabaseReadOnly(path: string): AuthDatabase | undefined {
  if (!existsSync(path)) return undefined;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}
