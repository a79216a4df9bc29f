import { redact } from '../../../../shared/redact.js';
import { cutCodePoints, DISCOVER_TIERS, discoverResult, fit, fitTranscript, formatWhen, HISTORICAL_NOTE, isCompactionSummary, plainContent, sessionMeta, Shaper } from './shaper.js';
import { SessionStore, StoreError, type AnchoredView, type SearchHit, type SessionRow } from './store.js';

// Hermes' session_search (tools/session_search_tool.py and hermes_state.py at upstream commit
// 88d1d6206f39) over a read-only SessionStore: the mode is inferred from the
// arguments, and each mode answers in Hermes' own shape, with Hermes' defaults:
//
//   discover  query                          limit 3 (1-10), ±5 window, 3 bookends, 300 FTS rows scanned
//   scroll    session_id + around_message_id window 5 (1-20)
//   read      session_id                     whole session, or first 20 + last 10
//   browse    nothing                        limit 3 (1-10) most recently active root sessions
//
// Gateway differences: there is no `profile` parameter (cross-profile reads are deliberately unavailable), no
// current session (the gateway is not inside a Hermes conversation, so nothing is excluded as
// "already in context"), every answer carries a historical-context `note`, secrets are redacted
// before anything is cut, and the answer is fitted to the gateway's output cap by shortening message
// contents (each cut flagged `content_truncated`) instead of being replaced by a truncation receipt.
//
// How a message and an answer are shaped (redaction, caps, the output budget): shaper.ts.

export interface SearchArgs {
  query?: string;
  limit?: number;
  sort?: 'newest' | 'oldest';
  session_id?: string;
  around_message_id?: number;
  window?: number;
  role_filter?: string;
}

export interface TaskInput {
  dbPath: string;
  args: SearchArgs;
  /** Largest serialized answer, in characters. */
  budgetChars: number;
  /** This HERMES_HOME's profile name (`default`, or `<name>` under `profiles/`). */
  profile: string;
}

/** Sources never listed or searched (`_HIDDEN_SESSION_SOURCES` at the pinned upstream). */
const HIDDEN_SOURCES = ['subagent', 'tool'] as const;
/** Searchable, but ranked below interactive sessions (`_DEMOTED_SESSION_SOURCES`). */
const DEMOTED_SOURCES = new Set(['cron']);
/** FTS rows discover scans before lineage dedup (`_DISCOVER_SCAN_LIMIT`). */
const DISCOVER_SCAN_LIMIT = 300;
const DEFAULT_LIMIT = 3;
const MAX_LIMIT = 10;
const DEFAULT_WINDOW = 5;
const MAX_WINDOW = 20;
const DISCOVER_WINDOW = 5;
const BOOKEND = 3;
const READ_HEAD = 20;
const READ_TAIL = 10;
const PREVIEW_CHARS = 60;
/** How much of the first user message browse reads: enough to redact a secret the preview cuts. */
const PREVIEW_SOURCE_CHARS = 400;

function clampInt(value: number | undefined, fallback: number, lo: number, hi: number): number {
  const n = typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback;
  return Math.max(lo, Math.min(n, hi));
}

/** Session-link values (`@session:<profile>/<id>`, `<profile>/<id>`) for this profile, reduced to the id. */
function normalizeSessionId(raw: string, profile: string): string {
  let id = raw.trim();
  if (id.startsWith('@session:')) id = id.slice('@session:'.length);
  const slash = id.indexOf('/');
  if (slash >= 0) {
    const named = id.slice(0, slash);
    id = id.slice(slash + 1);
    if (named !== '' && named !== profile) {
      throw new StoreError(
        'INVALID_ARGUMENTS',
        `session link names Hermes profile "${named}", but this gateway searches only its own profile ("${profile}"); cross-profile session reads are not available`,
      );
    }
  }
  return id;
}

// ---------------------------------------------------------------------------------------------
// The four modes
// ---------------------------------------------------------------------------------------------

/**
 * Hermes `_title_match_result`: the query (outer quotes and backticks stripped) names a session's
 * title, so that session is a result anchored on its first live message. Hidden sources are not.
 * As in Hermes, an empty bookend (the window already reaches that end of the session) falls back to
 * the session's first/last three live messages, so a short session's bookends repeat its window.
 */
function titleMatch(store: SessionStore, query: string) {
  const title = query.trim().replace(/^[`'"]+|[`'"]+$/g, '');
  if (title === '') return undefined;
  const sessionId = store.sessionByTitle(title);
  if (!sessionId) return undefined;
  const root = store.lineageRoot(sessionId);
  const meta = store.getSession(root) ?? store.getSession(sessionId);
  if (!meta || (HIDDEN_SOURCES as readonly string[]).includes(meta.source ?? '')) return undefined;
  const anchor = store.firstLiveMessage(sessionId);
  let view: AnchoredView = { window: [], messages_before: 0, messages_after: 0, bookend_start: [], bookend_end: [] };
  if (anchor !== undefined) {
    view = store.anchoredView(sessionId, anchor, DISCOVER_WINDOW, BOOKEND);
    if (view.bookend_start.length === 0) view.bookend_start = store.headTail(sessionId, BOOKEND, 0);
    if (view.bookend_end.length === 0) view.bookend_end = store.headTail(sessionId, 0, BOOKEND);
  }
  return { sessionId, root, meta, anchor, view, title: meta.title || title };
}

function discover(store: SessionStore, query: string, args: SearchArgs, limit: number, budget: number): Record<string, unknown> {
  const roles = args.role_filter
    ? args.role_filter
        .split(',')
        .map((r) => r.trim())
        .filter((r) => r !== '')
    : [];
  const sort = args.sort === 'newest' || args.sort === 'oldest' ? args.sort : undefined;
  const { hits } = store.search(query, {
    roles: roles.length > 0 ? roles : ['user', 'assistant'],
    excludeSources: HIDDEN_SOURCES,
    limit: DISCOVER_SCAN_LIMIT,
    sort,
  });
  const titled = titleMatch(store, query);
  if (hits.length === 0 && !titled) {
    return { success: true, mode: 'discover', query, results: [], count: 0, message: 'No matching sessions found.', note: HISTORICAL_NOTE };
  }
  // Interactive sessions first, cron after; stable, so rank (or time) order holds within each class.
  const ordered = [...hits].sort((a, b) => Number(DEMOTED_SOURCES.has(a.source ?? '')) - Number(DEMOTED_SOURCES.has(b.source ?? '')));
  // A session whose title the query names comes first and takes its lineage's place.
  const seen = new Map<string, SearchHit | null>(titled ? [[titled.root, null]] : []);
  for (const hit of ordered) {
    if (seen.size >= limit) break;
    const root = store.lineageRoot(hit.session_id);
    if (!seen.has(root)) seen.set(root, hit);
  }
  const found: Array<{ root: string; hit: SearchHit; meta: SessionRow | undefined; view: AnchoredView; content: unknown }> = [];
  for (const [root, hit] of seen) {
    if (!hit) continue;
    const view = store.anchoredView(hit.session_id, hit.id, DISCOVER_WINDOW, BOOKEND);
    found.push({ root, hit, meta: store.getSession(root), view, content: store.messageContent(hit.id) });
  }
  const shaper = new Shaper();
  const build = (tier: (typeof DISCOVER_TIERS)[number]) => {
    const results = found.map(({ root, hit, meta, view, content }) =>
      discoverResult(
        shaper,
        tier,
        {
          session_id: hit.session_id,
          when: formatWhen(meta?.started_at ?? hit.session_started),
          source: meta?.source || hit.source || 'unknown',
          model: meta?.model || hit.model || 'unknown',
          title: meta?.title || null,
          matched_role: hit.role,
          match_message_id: hit.id,
          snippet: shaper.snippet(hit.snippet, content),
        },
        { view, anchor: hit.id, root, keepBookend: (m) => !isCompactionSummary(m.content) },
      ),
    );
    if (titled) {
      const { sessionId, root, meta, anchor, view, title } = titled;
      const head = {
        session_id: sessionId,
        when: formatWhen(meta.started_at),
        source: meta.source || 'unknown',
        model: meta.model || 'unknown',
        title: redact(title),
        matched_role: 'session_title',
        match_message_id: anchor ?? null,
        snippet: `Session title matched: ${redact(title)}`,
      };
      results.unshift(discoverResult(shaper, tier, head, { view, anchor, root, keepBookend: () => true }));
    }
    return { success: true, mode: 'discover', query, results, count: results.length, sessions_searched: seen.size, note: HISTORICAL_NOTE };
  };
  return fit(DISCOVER_TIERS, build, budget, (t) => t.window);
}

function scroll(store: SessionStore, sessionId: string, anchorId: number, windowArg: number | undefined, budget: number): Record<string, unknown> {
  const window = clampInt(windowArg, DEFAULT_WINDOW, 1, MAX_WINDOW);
  let meta = store.getSession(sessionId);
  if (!meta) throw new StoreError('HERMES_SESSION_NOT_FOUND', `session_id not found: ${sessionId}`, { session_id: sessionId });
  let view = Number.isSafeInteger(anchorId) ? store.messagesAround(sessionId, anchorId, window) : { window: [], messages_before: 0, messages_after: 0 };
  let warning: string | undefined;
  if (view.window.length === 0 && Number.isSafeInteger(anchorId)) {
    // The anchor may live in a descendant of this session (compression/delegation children): rebind
    // within the same lineage, as Hermes does.
    const owning = store.owningSession(anchorId);
    if (owning && owning !== sessionId && store.lineageRoot(owning) === store.lineageRoot(sessionId)) {
      const rebound = store.messagesAround(owning, anchorId, window);
      if (rebound.window.length > 0) {
        view = rebound;
        warning = `around_message_id ${anchorId} lives in ${owning} (child of ${sessionId}); rebound transparently`;
        meta = store.getSession(owning) ?? meta;
        sessionId = owning;
      }
    }
  }
  if (view.window.length === 0) {
    throw new StoreError('HERMES_MESSAGE_NOT_FOUND', `around_message_id ${anchorId} not in session_id ${sessionId}`, {
      session_id: sessionId,
      around_message_id: anchorId,
    });
  }
  return fitTranscript(budget, (shaper, cap) => ({
    success: true,
    mode: 'scroll',
    session_id: sessionId,
    around_message_id: anchorId,
    session_meta: sessionMeta(meta),
    window,
    messages: view.window.map((m) => shaper.message(m, cap, anchorId)),
    messages_before: view.messages_before,
    messages_after: view.messages_after,
    ...(warning ? { warning } : {}),
  }));
}

function read(store: SessionStore, sessionId: string, budget: number): Record<string, unknown> {
  const meta = store.getSession(sessionId);
  if (!meta) throw new StoreError('HERMES_SESSION_NOT_FOUND', `session_id not found: ${sessionId}`, { session_id: sessionId });
  const total = store.countMessages(sessionId);
  const truncated = total > READ_HEAD + READ_TAIL;
  const rows = store.headTail(sessionId, truncated ? READ_HEAD : total, truncated ? READ_TAIL : 0);
  return fitTranscript(budget, (shaper, cap) => ({
    success: true,
    mode: 'read',
    session_id: sessionId,
    session_meta: sessionMeta(meta),
    message_count: total,
    truncated,
    messages: rows.map((m) => shaper.message(m, cap)),
    ...(truncated
      ? { message: `Session has ${total} messages; showing first ${READ_HEAD} + last ${READ_TAIL}. Pass around_message_id (any id above) to scroll the middle.` }
      : {}),
  }));
}

function browse(store: SessionStore, limit: number): Record<string, unknown> {
  const results = store.browse(HIDDEN_SOURCES, limit, PREVIEW_SOURCE_CHARS).map((s) => {
    const raw = redact(plainContent(s.preview_raw ?? '')).trim();
    const cut = cutCodePoints(raw, PREVIEW_CHARS);
    return {
      session_id: s.id,
      title: s.title ? redact(s.title) : null,
      source: s.source ?? '',
      started_at: s.started_at ?? '',
      last_active: s.last_active ?? '',
      message_count: s.message_count ?? 0,
      preview: cut.cut ? `${cut.text}...` : cut.text,
    };
  });
  return {
    success: true,
    mode: 'browse',
    results,
    count: results.length,
    message: `Showing ${results.length} most recent sessions. Pass a query= to search, or session_id+around_message_id to scroll.`,
    note: HISTORICAL_NOTE,
  };
}

/**
 * Checks what can be checked without the database (a session link naming another profile) and
 * reduces `session_id` to a bare id. Throws StoreError('INVALID_ARGUMENTS').
 */
export function prepareArgs(input: TaskInput): SearchArgs {
  const args = { ...input.args };
  if (typeof args.session_id === 'string') args.session_id = normalizeSessionId(args.session_id, input.profile);
  return args;
}

/** Runs one session_search call (arguments from prepareArgs) against an open store. Throws StoreError for expected failures. */
export function runSessionSearch(store: SessionStore, args: SearchArgs, budgetChars: number): Record<string, unknown> {
  const sessionId = typeof args.session_id === 'string' ? args.session_id : '';
  if (sessionId !== '' && args.around_message_id !== undefined && args.around_message_id !== null) {
    return scroll(store, sessionId, args.around_message_id, args.window, budgetChars);
  }
  if (sessionId !== '') return read(store, sessionId, budgetChars);
  const limit = clampInt(args.limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (query === '') return browse(store, limit);
  return discover(store, query, args, limit, budgetChars);
}
