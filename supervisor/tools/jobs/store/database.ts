import Database from 'better-sqlite3';
import { closeSync, chmodSync, lstatSync, openSync, constants } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';

// The job database: one SQLite file (default $HERMES_HOME/gateway-jobs.sqlite3), mode 0600, WAL so
// status reads never wait for a writer, and a busy timeout so two gateway processes (or the
// operator CLI) serialise on admission instead of failing. The schema is versioned with
// PRAGMA user_version; each migration runs once, in order, inside one transaction.
//
// Paths are checked before SQLite opens them: the file itself must not be a symlink, and every
// directory above it must belong to root or to us and not be group/world-writable (sticky
// directories such as /tmp excepted), so nobody else can swap the database or its WAL under us.

export type JobDatabase = Database.Database;

/**
 * Every schema version's step, in order: MIGRATIONS[v] takes a database from version v to v + 1,
 * so a database any earlier gateway left behind is brought up to date one step at a time.
 */
const MIGRATIONS: readonly string[] = [
  // 1: jobs and the operator admission gate.
  `CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL,
     request_hash TEXT NOT NULL,
     idempotency_key TEXT UNIQUE,
     prepared_by TEXT NOT NULL,
     session_id TEXT,
     command TEXT,
     workdir TEXT NOT NULL,
     max_runtime INTEGER NOT NULL,
     profile TEXT NOT NULL,
     heavy INTEGER NOT NULL DEFAULT 0,
     memory_reservation INTEGER NOT NULL DEFAULT 0,
     state TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     started_at INTEGER,
     deadline_at INTEGER,
     finished_at INTEGER,
     exit_code INTEGER,
     signal TEXT,
     termination_reason TEXT,
     output_tail TEXT NOT NULL DEFAULT '',
     output_bytes INTEGER NOT NULL DEFAULT 0,
     instance_id TEXT,
     instance_pid INTEGER,
     instance_start TEXT,
     worker_pid INTEGER,
     worker_start TEXT,
     unit TEXT,
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX jobs_by_state ON jobs(state);
   CREATE TABLE admission_gate (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     paused INTEGER NOT NULL DEFAULT 0,
     owner_hash TEXT,
     paused_at INTEGER,
     reason TEXT
   );
   INSERT INTO admission_gate (id, paused) VALUES (1, 0);`,
  // 2: each gateway process's SIGUSR1 pause, so the operator CLI sees what /readyz sees. A row
  // belongs to one process (instance id, pid and start time); rows of dead processes mean nothing.
  `CREATE TABLE signal_pauses (
     instance_id TEXT PRIMARY KEY,
     pid INTEGER NOT NULL,
     instance_start TEXT NOT NULL,
     paused_at INTEGER NOT NULL
   );`,
  // 3: PTY jobs. Whether the command runs on a pseudo-terminal, and its window size, are part of
  // the frozen request (NULL sizes on a plain job).
  `ALTER TABLE jobs ADD COLUMN pty INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE jobs ADD COLUMN pty_cols INTEGER;
   ALTER TABLE jobs ADD COLUMN pty_rows INTEGER;`,
  // 4: the output tail's styled twin (supervisor/core/styled.ts): the same text with its colours,
  // for the result view; NULL when the output has none. Its visible text is output_tail's exactly,
  // so it holds nothing the redacted tail does not. And whether the tail is only the end of the
  // output (NULL on older rows): the byte count includes the sequences the tail has lost, so
  // comparing the two called coloured output cut when it was whole.
  `ALTER TABLE jobs ADD COLUMN output_styled TEXT;
   ALTER TABLE jobs ADD COLUMN output_truncated INTEGER;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Throws unless `path` may hold private state: not a symlink, only trusted directories above it. */
export function assertSafePath(path: string, what: string): void {
  const abs = resolve(path);
  const fail = (why: string): never => {
    throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `${what} ${abs}: ${why}`);
  };
  try {
    if (lstatSync(abs).isSymbolicLink()) fail('is a symbolic link; give the real path');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const uid = process.getuid?.() ?? 0;
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    let st;
    try {
      st = lstatSync(dir);
    } catch (e) {
      return fail(`directory ${dir} is not accessible (${(e as NodeJS.ErrnoException).code})`);
    }
    if (st.isSymbolicLink()) fail(`directory ${dir} is a symbolic link`);
    if (!st.isDirectory()) fail(`${dir} is not a directory`);
    if (st.uid !== 0 && st.uid !== uid) fail(`directory ${dir} belongs to uid ${st.uid}, neither root nor us`);
    const sticky = (st.mode & 0o1000) !== 0; // S_ISVTX
    if (st.mode & 0o022 && !sticky) fail(`directory ${dir} is group- or world-writable`);
    if (dir === sep || dir === dirname(dir)) break;
  }
}

/** Opens (creating, 0600) and migrates the job database. */
export function openJobDatabase(path: string, options: { create?: boolean } = {}): JobDatabase {
  assertSafePath(path, 'job database');
  if (options.create !== false) {
    // Create the file ourselves so it is 0600 from the first byte; SQLite gives its -wal and -shm
    // files the database file's mode.
    closeSync(openSync(path, constants.O_CREAT | constants.O_RDWR | constants.O_NOFOLLOW, 0o600));
    chmodSync(path, 0o600);
  }
  let db: JobDatabase;
  try {
    db = new Database(path, { fileMustExist: options.create === false });
  } catch (e) {
    throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `job database ${path}: ${(e as Error).message}`);
  }
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  // Deleted content (an admitted job's command) is overwritten, not left in free pages.
  db.pragma('secure_delete = ON');
  migrate(db);
  return db;
}

/**
 * Opens an existing job database read-only and as it is: never created, never migrated (a snapshot
 * taken before an upgrade must keep the schema the earlier version reads).
 */
export function openJobDatabaseAsIs(path: string): JobDatabase {
  assertSafePath(path, 'job database');
  let db: JobDatabase;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `job database ${path}: ${(e as Error).message}`);
  }
  db.pragma('busy_timeout = 5000');
  return db;
}

function migrate(db: JobDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `job database schema version ${current} is newer than this gateway's ${SCHEMA_VERSION}; refusing to touch it`);
  }
  if (current === SCHEMA_VERSION) return;
  db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const now = db.pragma('user_version', { simple: true }) as number;
    for (let v = now; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
