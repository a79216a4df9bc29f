import Database from 'better-sqlite3';
import { chmodSync, statSync, type Stats } from 'node:fs';

// Opening Hermes' session database read-only for SessionStore (store.ts): the checks that it is a
// state.db this reader understands (tables, schema version, columns), the sidecar permissions,
// and the errors a failed open or read becomes.

/**
 * The newest Hermes state.db `SCHEMA_VERSION` this gateway has been written against: 31, Hermes
 * 0.22's (hermes_state_common.SCHEMA_VERSION). It is no upper bound: a database is read by what it
 * holds (the tables and columns below, state_meta's flags), so a newer schema that keeps them is
 * read like this one. Only a newer schema that lost a column the reader needs is refused, as
 * STATE_DB_SCHEMA_TOO_NEW naming the schema and the columns.
 */
export const NEWEST_KNOWN_SCHEMA_VERSION = 31;
/**
 * The oldest version read: 17 (the schema the reader was first written against). Since version 11
 * Hermes adds columns declaratively (`_reconcile_columns`), whatever the version number; the
 * columns read are checked by name (REQUIRED_COLUMNS) on every open, whatever the version.
 */
export const OLDEST_SUPPORTED_SCHEMA_VERSION = 17;

/** The tables every query here reads: a database without them is not a Hermes session database. */
const REQUIRED_TABLES = ['sessions', 'messages'] as const;

/** Every column a query here needs: a database without one is not one this reader understands. */
const REQUIRED_COLUMNS: Record<(typeof REQUIRED_TABLES)[number], readonly string[]> = {
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

function noSessionsYet(path: string, why: string): StoreError {
  return new StoreError('STATE_DB_MISSING', `no Hermes sessions in ${path} yet: ${why}; Hermes adds them on its first session, so there is no session history to search yet`);
}

export function isSqliteError(e: unknown): boolean {
  return sqliteCode(e).startsWith('SQLITE_');
}

/** True for the transient error a read-only WAL reader can see while a writer resets the WAL (Hermes #100436). */
export function isTransientReadError(e: unknown): boolean {
  const code = sqliteCode(e);
  return code.startsWith('SQLITE_IOERR') || code === 'SQLITE_BUSY_RECOVERY' || code === 'SQLITE_PROTOCOL';
}

/** A pending rebuild of the search index (state_meta `fts_rebuild_high_water` / `_progress`). */
export interface IndexRebuild {
  /** Messages up to this id are being indexed. */
  total: number;
  /** Messages up to this id are indexed. */
  indexed: number;
  percent: number;
}

/**
 * What a state.db holds that the reader follows, read on every open (hermes_state_schema.py and
 * hermes_state_search.py name these): the reader never infers them from the schema version.
 */
export interface StateDbFacts {
  /** `MAX(version)` of schema_version; null where the table is absent or empty. */
  version: number | null;
  /** messages.display_kind (Hermes 0.22's display bookkeeping; `hidden` rows are scaffolding nobody saw). */
  displayKind: boolean;
  /** sessions.hidden (a session kept out of every list). */
  sessionsHidden: boolean;
  /** sessions.last_activity_at (Hermes' durable activity stamp). */
  lastActivity: boolean;
  /** Whether `messages_fts` exists, and how it is laid out (reported only: MATCH and snippet(…, -1) read every layout alike). */
  fts: 'inline' | 'external' | 'projection' | null;
  /** `messages_fts_trigram` exists (SQLite's own trigram tokenizer). */
  trigram: boolean;
  /** `messages_fts_cjk` exists: it needs Hermes' native tokenizer, so the reader never touches it. */
  cjkIndex: boolean;
  /** state_meta `fts_stale`: Hermes detached the index as damaged and searches the messages table. */
  ftsStale: boolean;
  /** A pending index rebuild (Hermes tops its search up by scanning the unindexed ids). */
  rebuild: IndexRebuild | null;
}

/** An open read-only connection with what its checks found. */
export interface OpenedStateDb {
  db: Database.Database;
  facts: StateDbFacts;
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
    const facts = readFacts(db, path);
    tightenNewSidecars(path, st, sidecarsBefore);
    return { db, facts };
  } catch (e) {
    db.close();
    if (isTransientReadError(e) || !isSqliteError(e)) throw e;
    throw storeErrorFrom(e, path);
  }
}

function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>).map((r) => r.name));
}

/** The layout of `messages_fts` (hermes_state_schema: inline, external content on messages, or the projection view of FTS storage v3). */
function ftsLayout(sql: string | undefined): StateDbFacts['fts'] {
  if (sql === undefined) return null;
  const content = /content\s*=\s*['"]?([A-Za-z_]+)/i.exec(sql)?.[1];
  if (content === undefined) return 'inline';
  return content === 'messages' ? 'external' : 'projection';
}

/** state_meta's flags the search follows (hermes_state_search `_refresh_fts_stale_state`, `_rebuild_status`). */
function stateMeta(db: Database.Database, present: boolean): Pick<StateDbFacts, 'ftsStale' | 'rebuild'> {
  if (!present || !columnsOf(db, 'state_meta').has('key')) return { ftsStale: false, rebuild: null };
  const rows = db.prepare(`SELECT key, value FROM state_meta WHERE key IN ('fts_stale', 'fts_rebuild_high_water', 'fts_rebuild_progress')`).all() as Array<{ key: string; value: unknown }>;
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  const total = Math.trunc(Number(meta.get('fts_rebuild_high_water') ?? 0)) || 0;
  const indexed = Math.trunc(Number(meta.get('fts_rebuild_progress') ?? 0)) || 0;
  return {
    ftsStale: meta.has('fts_stale'),
    rebuild: total > 0 ? { total, indexed, percent: Math.min(100, Math.trunc((100 * indexed) / total)) } : null,
  };
}

function readFacts(db: Database.Database, path: string): StateDbFacts {
  const master = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string; sql: string | null }>;
  const tables = new Map(master.map((r) => [r.name, r.sql ?? '']));
  const missingTables = REQUIRED_TABLES.filter((t) => !tables.has(t));
  if (missingTables.length === REQUIRED_TABLES.length && [...tables.keys()].every((t) => NON_SESSION_TABLES.has(t))) {
    // Nothing but Hermes' own non-session tables: a state.db another part of Hermes made before
    // any session (its tool server creates it with only `async_delegations`).
    const only = [...tables.keys()];
    throw noSessionsYet(path, `it holds none of the session tables (${only.length > 0 ? `only ${only.join(', ')}, made by another part of Hermes` : 'no tables at all'})`);
  }
  const floor = { oldest_supported_schema_version: OLDEST_SUPPORTED_SCHEMA_VERSION, newest_known_schema_version: NEWEST_KNOWN_SCHEMA_VERSION };
  if (missingTables.length > 0) {
    throw new StoreError(
      'STATE_DB_SCHEMA_UNSUPPORTED',
      `${path} is not a Hermes session database this gateway can read (missing table${missingTables.length > 1 ? 's' : ''} ${missingTables.join(', ')})`,
      floor,
    );
  }
  let version: number | null = null;
  if (tables.has('schema_version') && columnsOf(db, 'schema_version').has('version')) {
    const row = db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: unknown } | undefined;
    version = typeof row?.version === 'number' ? row.version : null;
  }
  const columns = { sessions: columnsOf(db, 'sessions'), messages: columnsOf(db, 'messages') };
  const absent = REQUIRED_TABLES.flatMap((t) => REQUIRED_COLUMNS[t].filter((c) => !columns[t].has(c)).map((c) => `${t}.${c}`));
  if (absent.length > 0) {
    const details = { schema_version: version, missing_columns: absent, ...floor };
    if (version !== null && version > NEWEST_KNOWN_SCHEMA_VERSION) {
      throw new StoreError(
        'STATE_DB_SCHEMA_TOO_NEW',
        `${path} has Hermes session schema version ${version}, newer than version ${NEWEST_KNOWN_SCHEMA_VERSION} this gateway knows, and it no longer has ${absent.join(', ')}, which session_search reads; it is left untouched (a gateway release that knows schema ${version} can search it)`,
        details,
      );
    }
    throw new StoreError(
      'STATE_DB_SCHEMA_UNSUPPORTED',
      `${path} (Hermes session schema version ${version ?? 'unknown'}) has no ${absent.join(', ')}, which this gateway reads; run Hermes once so it reconciles the database's columns (the gateway never migrates it)`,
      details,
    );
  }
  if (version !== null && version < OLDEST_SUPPORTED_SCHEMA_VERSION) {
    throw new StoreError(
      'STATE_DB_SCHEMA_UNSUPPORTED',
      `${path} has Hermes session schema version ${version}, older than version ${OLDEST_SUPPORTED_SCHEMA_VERSION} this gateway reads; run Hermes once so it migrates the database (the gateway never migrates it)`,
      { schema_version: version, ...floor },
    );
  }
  const fts = ftsLayout(tables.get('messages_fts'));
  // Hermes' reconcile_state_schema (hermes_state_schema.py, run by tools/async_delegation.py on its
  // own connection) lays out SessionDB's tables without a schema_version row and without the search
  // index; until SessionDB opens the database on Hermes' first session, it holds no session.
  if ((version === null || fts === null) && db.prepare('SELECT 1 FROM sessions LIMIT 1').get() === undefined) {
    throw noSessionsYet(path, `its session tables are laid out but empty (no ${version === null ? 'schema version' : 'search index'} yet)`);
  }
  return {
    version,
    displayKind: columns.messages.has('display_kind'),
    sessionsHidden: columns.sessions.has('hidden'),
    lastActivity: columns.sessions.has('last_activity_at'),
    fts,
    trigram: tables.has('messages_fts_trigram'),
    cjkIndex: tables.has('messages_fts_cjk'),
    ...stateMeta(db, tables.has('state_meta')),
  };
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
