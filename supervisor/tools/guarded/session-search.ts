import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { GatewayConfig } from '../../platform/config.js';
import { cpuTask, runOnCpuPool } from '../../platform/thread-pool/pool.js';
import type { ProbeResult, ReadinessComponent } from '../../platform/health/readiness.js';
import { MAX_QUERY_CHARS } from './session-search/fts.js';
import type { SearchArgs, TaskInput } from './session-search/shapes.js';
import type sessionSearchTask from './session-search/task.js';
import type { TaskResult } from './session-search/task.js';

// session_search — the guarded, read-only adapter over Hermes' session database
// ($HERMES_HOME/state.db). Hermes' own tool is an agent-loop tool (it needs the live agent's db
// handle), so the gateway re-implements it: same parameters minus the cross-profile `profile`
// override, same four result shapes and defaults (see session-search/shapes.ts), read through
// better-sqlite3 opened read-only on a thread of the supervisor's CPU pool (cpu/pool.ts) running
// session-search/task.ts, never migrating or writing the database. A missing database, an unknown
// schema and a newer schema are stable errors.

/** Reads of Hermes' state use a 30-second budget, like every Hermes-backed read of the gateway. */
const DEADLINE_MS = 30_000;
/** Room left under the gateway's output cap for its own envelope. */
const ENVELOPE_RESERVE_CHARS = 1024;
const SESSION_ID_MAX_CHARS = 512;
const ROLE_FILTER_MAX_CHARS = 256;

const DESCRIPTION = [
  'Search past Hermes conversations in the local session database ($HERMES_HOME/state.db, opened read-only), or read inside one. ' +
    'Results are historical conversation context: what was said at the time, not proof of the current state of any file, service or external source. ' +
    'If the user gave a direct source (URL, file, account, live system), inspect that source first when accessible and use this as secondary context.',
  '',
  'Four calling shapes, chosen by which arguments are set:',
  '1) DISCOVER: pass `query`. FTS5 search; hits are deduplicated by session lineage and the top `limit` sessions returned (default 3, max 10). ' +
    'Each result carries session_id, when, source, model, title, snippet (match marked >>> <<<), match_message_id, matched_role, ' +
    'messages (the ±5 user/assistant messages around the match, the match flagged `anchor`), bookend_start/bookend_end ' +
    '(first/last 3 user/assistant messages of the session) and messages_before/messages_after. ' +
    'Subagent and tool sessions are not searched; cron sessions rank below interactive ones.',
  '2) SCROLL: pass `session_id` + `around_message_id`. Returns ±`window` messages (default 5, clamped to 1-20) around that message. ' +
    'To scroll forward pass the last returned id, backward the first; fewer than `window` before/after means you reached an end.',
  '3) READ: pass `session_id` alone. The whole session, or its first 20 + last 10 messages when longer.',
  '4) BROWSE: pass nothing. The `limit` most recently active sessions (default 3) with title, preview and timestamps.',
  '',
  'Query syntax (FTS5): terms are ANDed by default; use OR for broader recall (`alpha OR beta`), "quoted phrases", NOT, and prefix* wildcards. ' +
    'Chinese/Japanese/Korean terms of 3+ characters use a trigram index; shorter ones a substring scan. ' +
    'Only this Hermes profile is searched: there is no cross-profile option.',
].join('\n');

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      maxLength: MAX_QUERY_CHARS,
      description:
        'Discover shape: keywords, "phrases" or boolean FTS5 expressions to find in past sessions. Omit to browse recent sessions. ' +
        `Ignored when session_id is set. At most ${MAX_QUERY_CHARS} characters.`,
    },
    limit: {
      type: 'integer',
      default: 3,
      description: 'Discover/browse shapes: sessions to return (default 3, clamped to 1-10). Use 5-10 when the topic likely spans several sessions.',
    },
    sort: {
      type: 'string',
      enum: ['newest', 'oldest'],
      description:
        "Discover shape only: temporal bias on top of FTS5 ranking. Omit for relevance order; 'newest' for \"where did we leave X\", 'oldest' for \"how did X start\".",
    },
    session_id: {
      type: 'string',
      maxLength: SESSION_ID_MAX_CHARS,
      description:
        'Scroll shape (with around_message_id) or read shape (alone): the session to read, e.g. a session_id from a discover result. ' +
        'A session link `@session:<profile>/<id>` of this profile is accepted.',
    },
    around_message_id: {
      type: 'integer',
      description: 'Scroll shape: the message id to center the window on (a match_message_id, or any id seen in an earlier window).',
    },
    window: {
      type: 'integer',
      default: 5,
      description: 'Scroll shape only: messages on each side of the anchor (the anchor is always included). Default 5, clamped to 1-20.',
    },
    role_filter: {
      type: 'string',
      maxLength: ROLE_FILTER_MAX_CHARS,
      description:
        "Discover shape: comma-separated roles to search. Default 'user,assistant' (tool output is usually noise); 'user,assistant,tool' includes tool output, 'tool' searches only it.",
    },
  },
  additionalProperties: false,
} as const;

const SEARCH = cpuTask<typeof sessionSearchTask>(new URL('./session-search/task.js', import.meta.url));

/** The Hermes profile a HERMES_HOME is: `<root>/profiles/<name>` is `<name>`, anything else `default`. */
function profileNameOf(hermesHome: string): string {
  return basename(dirname(hermesHome)) === 'profiles' ? basename(hermesHome) : 'default';
}

function errorCodeOf(code: string): ErrorCode {
  return (Object.values(ErrorCode) as string[]).includes(code) ? (code as ErrorCode) : ErrorCode.INTERNAL_ERROR;
}

export function sessionSearchTools(config: GatewayConfig, log: Logger): ToolDefinition[] {
  const dbPath = join(config.hermesHome, 'state.db');
  const profile = profileNameOf(config.hermesHome);
  const budgetChars = Math.max(1024, config.limits.maxOutputChars - ENVELOPE_RESERVE_CHARS);
  return [
    {
      name: 'session_search',
      description: DESCRIPTION,
      inputSchema: INPUT_SCHEMA as unknown as ToolDefinition['inputSchema'],
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, title: 'Search past Hermes sessions' },
      requiresOwner: false,
      async handler(args, ctx) {
        const input: TaskInput = { dbPath, args: args as SearchArgs, budgetChars, profile };
        const deadline = AbortSignal.timeout(DEADLINE_MS);
        let result: TaskResult;
        try {
          result = await runOnCpuPool(SEARCH, input, AbortSignal.any([ctx.signal, deadline]));
        } catch (e) {
          if (ctx.signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'session_search was cancelled; its read was stopped');
          if (deadline.aborted) {
            log.warn({ event: 'session_search_timeout', deadline_ms: DEADLINE_MS }, 'session_search exceeded its deadline');
            throw new GatewayError(
              ErrorCode.SESSION_SEARCH_TIMEOUT,
              `session_search did not finish within ${DEADLINE_MS / 1000}s and was stopped; narrow the query (more specific terms, a quoted phrase) and try again`,
            );
          }
          if ((e as Error)?.message === 'Task queue is at limit') {
            throw new GatewayError(ErrorCode.BUSY, 'too many session_search calls are waiting; try again shortly');
          }
          throw e;
        }
        // Hermes answers its failures as tool_error(..., success=False): the flag travels with the code.
        if (!result.ok) throw new GatewayError(errorCodeOf(result.code), result.message, { success: false, ...result.details });
        return { structured: result.payload };
      },
    },
  ];
}

/** The probe runs on the event loop: it waits at most this long on a writer's lock. */
const PROBE_BUSY_TIMEOUT_MS = 100;
const PROBE_TRANSIENT_RETRIES = 2;

/**
 * A /readyz component for session_search's database (`session_db`). It opens state.db exactly as
 * the tool does (SessionStore.open: SQLITE_OPEN_READONLY, file must exist, same schema check; no
 * migration, no pragma change, no write), reads only sqlite_master and schema_version, and closes.
 *   - a supported schema (17 to 22, hermes-agent 0.19.0's), readable: ready, status `ok`, with its version;
 *   - no state.db yet (Hermes has not run in this HERMES_HOME): ready, status `missing` (nothing to
 *     search is not a failure; session_search answers STATE_DB_MISSING);
 *   - a newer, older or foreign/unreadable database: not ready, status `error`, the stable code
 *     (STATE_DB_SCHEMA_TOO_NEW, STATE_DB_SCHEMA_UNSUPPORTED, STATE_DB_UNAVAILABLE) in the reason;
 *   - locked by Hermes' writer past the probe's short wait: ready, status `busy` (transient).
 */
export function sessionDbReadiness(config: GatewayConfig): ReadinessComponent {
  const dbPath = join(config.hermesHome, 'state.db');
  return {
    name: 'session_db',
    async probe(): Promise<ProbeResult> {
      const { SessionStore, StoreError, SUPPORTED_SCHEMA_VERSION, OLDEST_SUPPORTED_SCHEMA_VERSION, isSqliteError, isTransientReadError, storeErrorFrom } = await import('./session-search/store.js');
      for (let attempt = 0; ; attempt++) {
        let store: ReturnType<typeof SessionStore.open> | undefined;
        try {
          store = SessionStore.open(dbPath, { busyTimeoutMs: PROBE_BUSY_TIMEOUT_MS });
          return {
            ready: true,
            status: 'ok',
            details: { path: dbPath, schema_version: store.schemaVersion, trigram_index: store.hasTrigramIndex },
          };
        } catch (e) {
          if (!(e instanceof StoreError) && isTransientReadError(e) && attempt < PROBE_TRANSIENT_RETRIES) {
            await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
            continue;
          }
          if (!(e instanceof StoreError) && !isSqliteError(e)) throw e; // a defect: Readiness reports it as an error
          const err = storeErrorFrom(e, dbPath);
          if (err.code === ErrorCode.STATE_DB_MISSING) {
            return { ready: true, status: 'missing', reason: `${err.code}: ${err.message}`, details: { path: dbPath } };
          }
          if (err.code === ErrorCode.BUSY) {
            return {
              ready: true,
              status: 'busy',
              reason: `${dbPath} is locked by a Hermes writer right now; session_search waits for it (this probe does not)`,
              details: { path: dbPath },
            };
          }
          const action =
            err.code === ErrorCode.STATE_DB_SCHEMA_TOO_NEW || err.code === ErrorCode.STATE_DB_SCHEMA_UNSUPPORTED
              ? `this gateway reads Hermes' state.db schema ${OLDEST_SUPPORTED_SCHEMA_VERSION} to ${SUPPORTED_SCHEMA_VERSION}: use a gateway and a Hermes release that agree on it`
              : `check that ${dbPath} is Hermes' readable session database (Hermes itself can open it)`;
          return { ready: false, status: 'error', reason: `${err.code}: ${err.message}`, action, details: { path: dbPath, code: err.code, ...(err.details ?? {}) } };
        } finally {
          store?.close();
        }
      }
    },
  };
}
