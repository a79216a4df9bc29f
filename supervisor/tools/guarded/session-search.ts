import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { GatewayConfig } from '../../platform/config.js';
import { cpuTask, runOnCpuPool } from '../../platform/thread-pool/pool.js';
import type { ProbeResult, ReadinessComponent } from '../../platform/health/readiness.js';
import { HERMES_CHANGES, type HermesRelease } from '../../platform/hermes/release.js';
import { EXCLUDE_SESSION_IDS_CAP, MAX_QUERY_CHARS } from './session-search/fts.js';
import type { SearchArgs, SessionSearchChange, TaskInput } from './session-search/shapes.js';
import type sessionSearchTask from './session-search/task.js';
import type { TaskResult } from './session-search/task.js';
import { hermesArgumentRepair } from '../../core/hermes-args.js';

// session_search — the guarded, read-only adapter over Hermes' session database
// ($HERMES_HOME/state.db). Hermes' own tool is an agent-loop tool (it needs the live agent's db
// handle), so the gateway re-implements it: the parameters of the Hermes it fronts minus the
// cross-profile `profile` override (its schema is built once, for that Hermes: Hermes 0.22's
// `detail`, `after`, `before` and `exclude_session_ids` only where it has them), the same four
// result shapes and defaults (see session-search/shapes.ts), read through better-sqlite3 opened
// read-only on a thread of the supervisor's CPU pool (platform/thread-pool/pool.ts) running session-search/task.ts,
// never migrating or writing the database. The database is read by what it holds, whatever its
// schema version (session-search/store-open.ts); a missing database, and one without the columns
// the reader needs, are stable errors.

/** Reads of Hermes' state use a 30-second budget, like every Hermes-backed read of the gateway. */
const DEADLINE_MS = 30_000;
/** Room left under the gateway's output cap for its own envelope. */
const ENVELOPE_RESERVE_CHARS = 1024;
const SESSION_ID_MAX_CHARS = 512;
const ROLE_FILTER_MAX_CHARS = 256;
/** `after` / `before`: an ISO datetime or a relative duration is far shorter. */
const TIME_BOUND_MAX_CHARS = 64;
/** Items `exclude_session_ids` accepts (Hermes uses the first EXCLUDE_SESSION_IDS_CAP distinct ones). */
const EXCLUDE_IDS_MAX_ITEMS = 100;

/** The tool's description, for a Hermes with `changes`. */
function description(changes: ReadonlySet<SessionSearchChange>): string {
  const adaptive = changes.has('session_search_adaptive_detail');
  return [
    'Search past Hermes conversations in the local session database ($HERMES_HOME/state.db, opened read-only), or read inside one. ' +
      'Results are historical conversation context: what was said at the time, not proof of the current state of any file, service or external source. ' +
      'If the user gave a direct source (URL, file, account, live system), inspect that source first when accessible and use this as secondary context.',
    '',
    'Four calling shapes, chosen by which arguments are set:',
    '1) DISCOVER: pass `query`. FTS5 search; hits are deduplicated by session lineage and the top `limit` sessions returned (default 3, max 10). ' +
      'Each result carries session_id, when, source, model, title, snippet (match marked >>> <<<), match_message_id, matched_role, ' +
      'messages (the ±5 user/assistant messages around the match, the match flagged `anchor`), bookend_start/bookend_end ' +
      '(first/last 3 user/assistant messages of the session) and messages_before/messages_after' +
      (adaptive ? "; with detail 'adaptive' (the default) only the top result has them, the others just the matched message. " : '. ') +
      (changes.has('session_search_time_bounds') ? '`after`/`before` bound the session start (ISO date/datetime, or 7d, 24h, 2w). ' : '') +
      (changes.has('session_search_exclude_ids') ? '`exclude_session_ids` leaves out sessions already inspected, with their lineage. ' : '') +
      `${changes.has('session_search_kanban_hidden') ? 'Subagent, kanban and tool' : 'Subagent and tool'} sessions are not searched; cron sessions rank below interactive ones.`,
    '2) SCROLL: pass `session_id` + `around_message_id`. Returns ±`window` messages (default 5, clamped to 1-20) around that message. ' +
      'To scroll forward pass the last returned id, backward the first; fewer than `window` before/after means you reached an end.',
    `3) READ: pass \`session_id\` alone. The whole session, or its first 20 + last 10 messages when longer${changes.has('session_search_read_cap') ? '; each message at most 2000 characters' : ''}.`,
    '4) BROWSE: pass nothing. The `limit` most recently active sessions (default 3) with title, preview and timestamps.',
    '',
    'Query syntax (FTS5): terms are ANDed by default; use OR for broader recall (`alpha OR beta`), "quoted phrases", NOT, and prefix* wildcards. ' +
      'Chinese/Japanese/Korean terms of 3+ characters use a trigram index; shorter ones a substring scan. ' +
      'Only this Hermes profile is searched: there is no cross-profile option.' +
      (changes.has('session_search_links') ? ' When referring the user to a session, write its `link` value verbatim inline.' : ''),
  ].join('\n');
}

/** The tool's input schema, for a Hermes with `changes` (its parameters, never `profile`). */
function inputSchema(changes: ReadonlySet<SessionSearchChange>): Record<string, unknown> {
  return {
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
      ...(changes.has('session_search_adaptive_detail')
        ? {
            detail: {
              type: 'string',
              enum: ['adaptive', 'full'],
              default: 'adaptive',
              description:
                "Discover shape only: 'adaptive' (default) fully hydrates the top-ranked result and returns only the matched message for the others; 'full' returns bookends and the whole anchored window for every result.",
            },
          }
        : {}),
      ...(changes.has('session_search_time_bounds')
        ? {
            after: {
              type: 'string',
              maxLength: TIME_BOUND_MAX_CHARS,
              description:
                'Discover shape only: inclusive lower bound on session start time. ISO date/datetime (e.g. 2026-06-01) or relative duration (7d, 24h, 2w = within the last N). Use only when the user names a time frame; sort is a ranking bias, not a bound.',
            },
            before: {
              type: 'string',
              maxLength: TIME_BOUND_MAX_CHARS,
              description:
                'Discover shape only: exclusive upper bound on session start time. ISO date/datetime (a date-only value is midnight UTC that day) or relative duration (7d = older than a week). Use only when the user names a time frame.',
            },
          }
        : {}),
      ...(changes.has('session_search_exclude_ids')
        ? {
            exclude_session_ids: {
              type: 'array',
              items: { type: 'string', maxLength: SESSION_ID_MAX_CHARS },
              maxItems: EXCLUDE_IDS_MAX_ITEMS,
              description: `Discover shape only: session ids already inspected this task; those sessions and their lineage are left out, so a later query explores instead of repeating the same hit. The first ${EXCLUDE_SESSION_IDS_CAP} distinct ids count.`,
            },
          }
        : {}),
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
  };
}

/** The session_search changes `release` has (every one for a Hermes of unknown version). */
export function sessionSearchChanges(release: HermesRelease): SessionSearchChange[] {
  return (Object.keys(HERMES_CHANGES) as Array<keyof typeof HERMES_CHANGES>).filter(
    (name): name is SessionSearchChange => name.startsWith('session_search_') && release.has(name),
  );
}

const SEARCH = cpuTask<typeof sessionSearchTask>(new URL('./session-search/task.js', import.meta.url));

/** The Hermes profile a HERMES_HOME is: `<root>/profiles/<name>` is `<name>`, anything else `default`. */
function profileNameOf(hermesHome: string): string {
  return basename(dirname(hermesHome)) === 'profiles' ? basename(hermesHome) : 'default';
}

function errorCodeOf(code: string): ErrorCode {
  return (Object.values(ErrorCode) as string[]).includes(code) ? (code as ErrorCode) : ErrorCode.INTERNAL_ERROR;
}

/** `release`: the Hermes whose session_search the tool answers as (its parameters, fields and routes). */
export function sessionSearchTools(config: GatewayConfig, log: Logger, release: HermesRelease): ToolDefinition[] {
  const dbPath = join(config.hermesHome, 'state.db');
  const profile = profileNameOf(config.hermesHome);
  const budgetChars = Math.max(1024, config.limits.maxOutputChars - ENVELOPE_RESERVE_CHARS);
  const changes = sessionSearchChanges(release);
  const followed = new Set(changes);
  const schema = inputSchema(followed);
  return [
    {
      name: 'session_search',
      description: description(followed),
      inputSchema: schema as unknown as ToolDefinition['inputSchema'],
      // Hermes' dispatch coercion ("5" for limit) before the schema; Hermes' function clamps.
      coerceArguments: hermesArgumentRepair(schema),
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, title: 'Search past Hermes sessions' },
      requiresOwner: false,
      async handler(args, ctx) {
        const input: TaskInput = { dbPath, args: args as SearchArgs, budgetChars, profile, changes };
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
      const { SessionStore, StoreError, NEWEST_KNOWN_SCHEMA_VERSION, isSqliteError, isTransientReadError, storeErrorFrom } = await import('./session-search/store.js');
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
