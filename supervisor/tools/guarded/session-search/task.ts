import { prepareArgs, type TaskInput } from './args.js';
import { runSessionSearch } from './shapes.js';
import { isSqliteError, isTransientReadError, SessionStore, StoreError, storeErrorFrom } from './store.js';

// The piscina worker entry for session_search: better-sqlite3 is synchronous, so the search runs on
// its own thread and a slow scan never stalls the gateway's event loop. A deadline or client
// cancellation terminates this thread; better-sqlite3's environment cleanup hook then closes the
// connection, so no read lock or WAL snapshot outlives the call.

export type TaskResult =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; code: string; message: string; details?: Record<string, unknown> };

/** Hermes retries read-only opens that hit a writer's WAL reset (`_READ_ONLY_IOERR_RETRY_*`). */
const TRANSIENT_RETRIES = 3;
const TRANSIENT_BACKOFF_MS = 50;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function failure(e: StoreError): TaskResult {
  return { ok: false, code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
}

export default function sessionSearchTask(input: TaskInput): TaskResult {
  let call;
  try {
    call = prepareArgs(input);
  } catch (e) {
    if (e instanceof StoreError) return failure(e);
    throw e;
  }
  for (let attempt = 0; ; attempt++) {
    let store: SessionStore | undefined;
    try {
      store = SessionStore.open(input.dbPath);
      return { ok: true, payload: runSessionSearch(store, call, input.budgetChars) };
    } catch (e) {
      if (e instanceof StoreError) return failure(e);
      if (isTransientReadError(e) && attempt < TRANSIENT_RETRIES) {
        sleepSync(TRANSIENT_BACKOFF_MS * (attempt + 1));
        continue;
      }
      if (!isSqliteError(e)) throw e; // a defect, not a database condition: the gateway logs it as internal
      return failure(storeErrorFrom(e, input.dbPath));
    } finally {
      store?.close();
    }
  }
}
