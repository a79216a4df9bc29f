import Database from 'better-sqlite3';
import { chmodSync, statSync, type Stats } from 'node:fs';

// Opening Hermes' session database read-only for SessionStore (store.ts): the checks that it is a
// state.db this reader understands (tables, schema version, columns), the sidecar permissions,
// and the errors a failed open or read becomes.

/**
 * The newest Hermes state.db `SCHEMA_VERSION` this adapter reads: hermes-agent 0.19.0's
 * hermes_state.py. A newer version may carry a data migration this reader does not know, so it is
 * refused (STATE_DB_SCHEMA_TOO_NEW) and left untouched.
 */
export const SUPPORTED_SCHEMA_VERSION = 22;
/**
 * The oldest version read: 17 (the schema the reader was first written against). Since version 11
 * Hermes adds columns declaratively (`_reconcile_columns`), whatever the version number, and 18-22
 * only migrated data or added tables and columns this reader does not use (gateway metadata,
 * session_model_usage, async_delegations; the FTS tables and triggers are the same); the columns it
 * does read are checked by name (REQUIRED_COLUMNS) on every open.
 */
export const OLDEST_SUPPORTED_SCHEMA_VERSION = 17;

/** Every column a query here names: a database without one is not one this reader understands. */
const REQUIRED_COLUMNS: Record<string, readonly string[]> = {
  sessions: ['id', 'source', 'model', 'model_config', 'title', 'started_at', 'ended_at', 'end_reason', 'parent_session_id', 'message_count', 'archived'],
  messages: ['id', 'session_id', 'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'timestamp', 'active', 'compacted'],
};

/** Hermes' busy timeout for readers (`_READ_BUSY_TIMEOUT_S`). */
const BUSY_TIMEOUT_MS = 5000;

export class StoreError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export function sqliteCode(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' ? code : '';
}

function sidecarPaths(path: string): string[] {
  return [`${path}-wal`, `${path}-shm`];
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Map an SQLite failure to a stable store error. */
export function storeErrorFrom(e: unknown, path: string): StoreError {
  if (e instanceof StoreError) return e;
  const code = sqliteCode(e);
  const why = (e as Error)?.message ?? String(e);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreError('BUSY', `the Hermes session database ${path} stayed locked by a writer for ${BUSY_TIMEOUT_MS / 1000}s; try again`);
  }
  if (code === 'SQLITE_CANTOPEN' && !exists(path)) return missingError(path);
  return new StoreError('STATE_DB_UNAVAILABLE', `the Hermes session database ${path} cannot be read: ${why}`, { sqlite_code: code || undefined });
}

/** SessionDB's tables that session_search reads (hermes_state.py). */
const SESSION_TABLES = ['schema_version', 'sessions', 'messages', 'messages_fts'];
/**
 * Tables Hermes creates in state.db outside SessionDB: tools/async_delegation.py's, which
 * tools/process_registry.py touches when Hermes' tools load (the tool server's start among them).
 */
const NON_SESSION_TABLES: ReadonlySet<string> = new Set(['async_delegations']);

function missingError(path: string): StoreError {
  return new StoreError(
    'STATE_DB_MISSING',
    `no Hermes session database at ${path}: Hermes creates state.db on its first run in this HERMES_HOME, so there is no session history to search yet`,
  );
}

function noSessionsYet(path: string, tables: string[]): StoreError {
  return new StoreError(
    'STATE_DB_MISSING',
    `no Hermes sessions in ${path} yet: it holds none of the session tables (${tables.length > 0 ? `only ${tables.join(', ')}, made by another part of Hermes` : 'no tables at all'}); Hermes adds them on its first session, so there is no session history to search yet`,
  );
}

export function isSqliteError(e: unknown): boolean {
  return sqliteCode(e).startsWith('SQLITE_');
}

/** True for the transient error a read-only WAL reader can see while a writer resets the WAL (Hermes #100436). */
export function isTransientReadError(e: unknown): boolean {
  const code = sqliteCode(e);
  return code.startsWith('SQLITE_IOERR') || code === 'SQLITE_BUSY_RECOVERY' || code === 'SQLITE_PROTOCOL';
}

/** An open read-only connection with what its checks found. */
export interface OpenedStateDb {
  db: Database.Database;
  /** The database's schema_version (within the supported range). */
  version: number;
  /** Whether the CJK trigram index (`messages_fts_trigram`) exists. */
  trigram: boolean;
}

/**
 * Opens `path` read-only and checks that it is a Hermes session database this adapter can read.
 * `busyTimeoutMs` (default Hermes' reader timeout) is shortened by the /readyz probe, which runs
 * on the gateway's event loop and must never wait long on a writer.
 */
export function openStateDb(path: string, options: { busyTimeoutMs?: number } = {}): OpenedStateDb {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw missingError(path);
    throw new StoreError('STATE_DB_UNAVAILABLE', `the Hermes session database ${path} cannot be read: ${(e as Error).message}`);
  }
  if (!st.isFile()) throw new StoreError('STATE_DB_UNAVAILABLE', `${path} is not a regular file, so it is not a Hermes session database`);
  const sidecarsBefore = sidecarPaths(path).map(exists);
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs ?? BUSY_TIMEOUT_MS });
  } catch (e) {
    if (isTransientReadError(e)) throw e;
    throw storeErrorFrom(e, path);
  }
  try {
    const { version, trigram } = checkSchema(db, path);
    tightenNewSidecars(path, st, sidecarsBefore);
    return { db, version, trigram };
  } catch (e) {
    db.close();
    if (isTransientReadError(e) || !isSqliteError(e)) throw e;
    throw storeErrorFrom(e, path);
  }
}

function checkSchema(db: Database.Database, path: string): { version: number; trigram: boolean } {
  const tables = new Set(
    (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((r) => r.name),
  );
  const missing = SESSION_TABLES.filter((t) => !tables.has(t));
  // None of them, and nothing but Hermes' own non-session tables: a state.db another part of
  // Hermes made before any session (its tool server creates it with only `async_delegations`),
  // so no session history yet. Any other table: a foreign database (unsupported below).
  if (missing.length === SESSION_TABLES.length && [...tables].every((t) => NON_SESSION_TABLES.has(t))) throw noSessionsYet(path, [...tables]);
  if (missing.length > 0) {
    throw new StoreError(
      'STATE_DB_SCHEMA_UNSUPPORTED',
      `${path} is not a Hermes session database this gateway can read (missing table${missing.length > 1 ? 's' : ''} ${missing.join(', ')})`,
      { supported_schema_version: SUPPORTED_SCHEMA_VERSION, oldest_supported_schema_version: OLDEST_SUPPORTED_SCHEMA_VERSION },
    );
  }
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: unknown } | undefined;
  const version = typeof row?.version === 'number' ? row.version : null;
  const supported = { supported_schema_version: SUPPORTED_SCHEMA_VERSION, oldest_supported_schema_version: OLDEST_SUPPORTED_SCHEMA_VERSION };
  if (version !== null && version > SUPPORTED_SCHEMA_VERSION) {
    throw new StoreError(
      'STATE_DB_SCHEMA_TOO_NEW',
      `${path} has Hermes session schema version ${version}, newer than version ${SUPPORTED_SCHEMA_VERSION} this gateway reads; it is left untouched (upgrade the gateway to search it)`,
      { schema_version: version, ...supported },
    );
  }
  if (version === null || version < OLDEST_SUPPORTED_SCHEMA_VERSION) {
    throw new StoreError(
      'STATE_DB_SCHEMA_UNSUPPORTED',
      `${path} has Hermes session schema version ${version ?? 'unknown'}, older than version ${OLDEST_SUPPORTED_SCHEMA_VERSION} this gateway reads; run Hermes once so it migrates the database (the gateway never migrates it)`,
      { schema_version: version, ...supported },
    );
  }
  for (const [table, columns] of Object.entries(REQUIRED_COLUMNS)) {
    const have = new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>).map((r) => r.name));
    const absent = columns.filter((c) => !have.has(c));
    if (absent.length > 0) {
      throw new StoreError(
        'STATE_DB_SCHEMA_UNSUPPORTED',
        `${path} (Hermes session schema version ${version}) has no ${table}.${absent.join(`, ${table}.`)}, which this gateway reads; run Hermes once so it reconciles the database's columns (the gateway never migrates it)`,
        { schema_version: version, missing_columns: absent.map((c) => `${table}.${c}`), ...supported },
      );
    }
  }
  return { version, trigram: tables.has('messages_fts_trigram') };
}

/** Sidecars SQLite created for this reader get state.db's own permission bits (never wider). */
function tightenNewSidecars(path: string, st: Stats, before: boolean[]): void {
  const uid = process.getuid?.();
  sidecarPaths(path).forEach((p, i) => {
    if (before[i]) return;
    try {
      const s = statSync(p);
      if (uid !== undefined && s.uid !== uid) return;
      const mode = st.mode & 0o666;
      if ((s.mode & 0o777) !== mode) chmodSync(p, mode);
    } catch {
      // Not created (or gone again): nothing to tighten.
    }
  });
}
