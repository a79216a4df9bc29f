import { join } from 'node:path';
import { ErrorCode } from '../../../../shared/errors.js';
import type { GatewayConfig } from '../../../platform/config.js';
import type { ProbeResult, ReadinessComponent } from '../../../platform/health/readiness.js';

/** The probe runs on the event loop: it waits at most this long on a writer's lock. */
const PROBE_BUSY_TIMEOUT_MS = 100;
const PROBE_TRANSIENT_RETRIES = 2;

/**
 * A /readyz component for session_search's database (`session_db`). It opens state.db exactly as
 * the tool does (SessionStore.open: SQLITE_OPEN_READONLY, file must exist, the same reading of what
 * the database holds; no migration, no pragma change, no write), reads only sqlite_master, the
 * tables' columns, schema_version and state_meta's index flags, and closes. The same rule as the
 * tool, whatever the schema version:
 *   - the tables and columns session_search reads, readable: ready, status `ok` with the schema
 *     version and the index layout; `degraded` (still ready) where Hermes marked its search index
 *     stale or it is absent, so searches scan the messages table;
 *   - no state.db yet (Hermes has not run in this HERMES_HOME), or one without sessions (another part
 *     of Hermes laid out the tables before the first session): ready, status `empty` — no session
 *     history yet, so nothing to search, which is not a failure (session_search answers
 *     STATE_DB_MISSING, the code the reason starts with);
 *   - a database without a column the reader needs: not ready, status `error`, with the stable code
 *     (STATE_DB_SCHEMA_TOO_NEW for a schema newer than the gateway knows, STATE_DB_SCHEMA_UNSUPPORTED
 *     otherwise) and the missing columns; a foreign or unreadable file: STATE_DB_UNAVAILABLE;
 *   - locked by Hermes' writer past the probe's short wait: ready, status `busy` (transient).
 */
export function sessionDbReadiness(config: GatewayConfig): ReadinessComponent {
  const dbPath = join(config.hermesHome, 'state.db');
  return {
    name: 'session_db',
    async probe(): Promise<ProbeResult> {
      const { SessionStore, StoreError, NEWEST_KNOWN_SCHEMA_VERSION, isSqliteError, isTransientReadError, storeErrorFrom } = await import('./store.js');
      for (let attempt = 0; ; attempt++) {
        let store: ReturnType<typeof SessionStore.open> | undefined;
        try {
          store = SessionStore.open(dbPath, { busyTimeoutMs: PROBE_BUSY_TIMEOUT_MS });
          const { version, fts, trigram, cjkIndex, ftsStale, rebuild } = store.facts;
          const details = {
            path: dbPath,
            schema_version: version,
            fts_layout: fts,
            trigram_index: trigram,
            fts_stale: ftsStale,
            fts_rebuild: rebuild ? { percent: rebuild.percent, indexed: rebuild.indexed, total: rebuild.total } : null,
            ...(cjkIndex ? { cjk_index_unused: true } : {}),
          };
          if (!store.ftsUsable) {
            return {
              ready: true,
              status: 'degraded',
              reason: ftsStale
                ? `Hermes marked the search index of ${dbPath} stale; session_search scans the messages table instead, as Hermes does, until Hermes repairs it`
                : `${dbPath} has no search index (messages_fts); session_search scans the messages table instead until Hermes adds it`,
              details,
            };
          }
          return { ready: true, status: 'ok', details };
        } catch (e) {
          if (!(e instanceof StoreError) && isTransientReadError(e) && attempt < PROBE_TRANSIENT_RETRIES) {
            await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
            continue;
          }
          if (!(e instanceof StoreError) && !isSqliteError(e)) throw e; // a defect: Readiness reports it as an error
          const err = storeErrorFrom(e, dbPath);
          if (err.code === ErrorCode.STATE_DB_MISSING) {
            return { ready: true, status: 'empty', reason: `${err.code}: ${err.message}`, details: { path: dbPath } };
          }
          if (err.code === ErrorCode.BUSY) {
            return {
              ready: true,
              status: 'busy',
              reason: `${dbPath} is locked by a Hermes writer right now; session_search waits for it (this probe does not)`,
              details: { path: dbPath },
            };
          }
          const missing = Array.isArray(err.details?.missing_columns) ? (err.details.missing_columns as string[]).join(', ') : '';
          const action =
            err.code === ErrorCode.STATE_DB_SCHEMA_TOO_NEW
              ? `this gateway knows Hermes' state.db up to schema ${NEWEST_KNOWN_SCHEMA_VERSION}, and this newer one no longer has ${missing}: use a gateway release that knows it`
              : err.code === ErrorCode.STATE_DB_SCHEMA_UNSUPPORTED
                ? `run Hermes once in this HERMES_HOME so it migrates and reconciles state.db${missing ? ` (it lacks ${missing})` : ''}; the gateway never changes it`
                : `check that ${dbPath} is Hermes' readable session database (Hermes itself can open it)`;
          return { ready: false, status: 'error', reason: `${err.code}: ${err.message}`, action, details: { path: dbPath, code: err.code, ...(err.details ?? {}) } };
        } finally {
          store?.close();
        }
      }
    },
  };
}
