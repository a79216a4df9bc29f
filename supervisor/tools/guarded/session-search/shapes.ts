import { redactBeforeCut } from '../../../core/redaction.js';
import { EXCLUDE_SESSION_IDS_CAP } from './fts.js';
import { cutCodePoints, DISCOVER_TIERS, discoverResult, fit, fitTranscript, formatWhen, isCompactionSummary, plainContent, sessionMeta, Shaper } from './shaper.js';
import type { HermesChangeName } from '../../../platform/hermes/release.js';
import { SessionStore, StoreError, type AnchoredView, type IndexRebuild, type SearchHit, type SessionRow } from './store.js';

// Hermes' session_search (tools/session_search_tool.py and hermes_state.py at upstream commit
// 88d1d6206f39, as hermes-agent 0.19.0 answers; and Hermes 0.22's tools/session_search_tool.py,
// hermes_state_search.py and hermes_state_sessions.py, followed change by change where the Hermes the
// gateway fronts has them: TaskInput.changes, named in supervisor/platform/hermes/release.ts) over a
// read-only SessionStore: the mode is inferred from the arguments, and each mode answers in the
// followed Hermes' own shape, with its defaults:
//
//   discover  query                          limit 3 (1-10), ±5 window, 3 bookends, 300 FTS rows scanned
//                                            (0.22: only the top result hydrated unless detail=full;
//                                            after/before, exclude_session_ids; a `link` per result)
//   scroll    session_id + around_message_id window 5 (1-20)
//   read      session_id                     whole session, or first 20 + last 10 (0.22: 2000 characters a message)
//   browse    nothing                        limit 3 (1-10) most recently active sessions
//
// What the database holds (display_kind, sessions.hidden, a stale or rebuilding index) is read from
// it whatever the version (store-open.ts StateDbFacts).
//
// Gateway differences: there is no `profile` parameter (cross-profile reads are deliberately
// unavailable), no current session (the gateway is not inside a Hermes conversation, so nothing is
// excluded as "already in context"), secrets are redacted before anything is cut, and the answer is
// fitted to the gateway's output cap by shortening message contents (each cut flagged
// `content_truncated`) instead of being replaced by a truncation receipt. That results are
// historical context, not proof of the current state, is said where Hermes says it: in the tool's
// description.
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
  /** Hermes 0.22 on (session_search_adaptive_detail). */
  detail?: 'adaptive' | 'full';
  /** Hermes 0.22 on (session_search_time_bounds). */
  after?: string;
  before?: string;
  /** Hermes 0.22 on (session_search_exclude_ids). */
  exclude_session_ids?: string[];
}

/** The changes of session_search a Hermes release may have (supervisor/platform/hermes/release.ts). */
export type SessionSearchChange = Extract<HermesChangeName, `session_search_${string}`>;

export interface TaskInput {
  dbPath: string;
  args: SearchArgs;
  /** Largest serialized answer, in characters. */
  budgetChars: number;
  /** This HERMES_HOME's profile name (`default`, or `<name>` under `profiles/`). */
  profile: string;
  /** The changes the followed Hermes has (its session_search answers as that Hermes' does). */
  changes: readonly SessionSearchChange[];
}

/** The arguments of one call, checked and normalised before the database is opened (prepareArgs). */
export interface PreparedCall {
  args: SearchArgs;
  profile: string;
  changes: ReadonlySet<SessionSearchChange>;
  /** Discover's session start bounds (unix seconds), from `after` / `before`. */
  afterTs?: number;
  beforeTs?: number;
  /** Discover's `exclude_session_ids`, stripped, deduplicated and capped as Hermes does. */
  excludeIds: string[];
}

/** Sources never listed or searched (`_HIDDEN_SESSION_SOURCES`; kanban workers' too since Hermes 0.22). */
function hiddenSources(call: PreparedCall): readonly string[] {
  return call.changes.has('session_search_kanban_hidden') ? ['kanban', 'subagent', 'tool'] : ['subagent', 'tool'];
}
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
/** Hermes 0.22's per-message content cap of the read shape (`_READ_MAX_CONTENT`). */
const READ_MAX_CONTENT = 2000;
/** Hermes 0.22 asks its bounded browse for this many more sessions than it shows. */
const BROWSE_HEADROOM = 15;
/** `_RELATIVE_BOUND_RE` / `_RELATIVE_UNIT_SECONDS`: 7d, 24h, 2w. */
const RELATIVE_BOUND_RE = /^(\d+)\s*([hdw])$/i;
const RELATIVE_UNIT_SECONDS: Record<string, number> = { h: 3600, d: 86_400, w: 604_800 };

const NO_MATCH_MESSAGE = 'No matching sessions found.';
/** Hermes 0.22's no-match message (tools/session_search_tool.py `_discover`). */
const NO_MATCH_GUIDANCE =
  'No matching sessions found. FTS5 ANDs all terms by default — broaden with OR (`alpha OR beta`), exact-match with quoted phrases, exclude with NOT, or prefix-match with `deploy*`.';
/** Hermes 0.22's discover `link_hint`. */
const LINK_HINT =
  'When referring the user to a session, write its `link` value verbatim inline mid-sentence (it renders as a titled link) — never as markdown, in backticks, on its own line, or next to the title/id/date. To read more around a compact result, scroll: session_search(session_id=..., around_message_id=match_message_id).';
/** Hermes 0.22's scroll `hint`. */
const SCROLL_HINT =
  "Scroll forward: re-call with around_message_id = the LAST message's id; backward: the FIRST message's id (the boundary message repeats as an orientation marker). messages_before/messages_after < window means you've hit that end of the session.";

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
// Arguments
// ---------------------------------------------------------------------------------------------

/** Python's repr() of a string, as Hermes quotes a bad value in its error text. */
function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  return quote + text.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`).replaceAll('\n', '\\n') + quote;
}

const ISO_RE = /^(?=\d{4}-\d{2}-\d{2}(?!\d)|\d{8}(?!\d))(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,6}))?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Hermes `_parse_iso_bound`: an ISO date (midnight UTC) or datetime (naive = UTC), or `7d` / `24h` /
 * `2w` before now, as unix seconds; undefined for an empty value. Throws StoreError('INVALID_ARGUMENTS')
 * with Hermes' text otherwise.
 */
function parseTimeBound(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  const rel = RELATIVE_BOUND_RE.exec(text);
  if (rel) return Math.trunc(now) - Number(rel[1]) * RELATIVE_UNIT_SECONDS[rel[2]!.toLowerCase()]!;
  const bad = () =>
    new StoreError('INVALID_ARGUMENTS', `invalid time bound: ${pyRepr(value)} (expected ISO date/datetime like 2026-07-01, or a relative duration like 7d, 24h, 2w)`);
  const m = ISO_RE.exec(text);
  if (!m) throw bad();
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', tz] = m;
  const parts = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(sec)];
  const ms = Date.UTC(parts[0]!, parts[1]! - 1, parts[2]!, parts[3]!, parts[4]!, parts[5]!, Number(frac.padEnd(3, '0').slice(0, 3)));
  const check = new Date(ms);
  if (check.getUTCFullYear() !== parts[0] || check.getUTCMonth() !== parts[1]! - 1 || check.getUTCDate() !== parts[2] || parts[3]! > 23 || parts[4]! > 59 || parts[5]! > 59) throw bad();
  let offset = 0;
  if (tz && tz !== 'Z') {
    const sign = tz.startsWith('-') ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    offset = sign * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4) || '0') * 60);
    if (Number(digits.slice(0, 2)) > 23 || Number(digits.slice(2, 4) || '0') > 59) throw bad();
  }
  return Math.trunc(ms / 1000 - offset);
}

/** Hermes `_normalize_exclude_session_ids`: stripped, deduplicated, at most EXCLUDE_SESSION_IDS_CAP. */
function normalizeExcludeIds(raw: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const item of raw ?? []) {
    const id = item.trim();
    if (id !== '' && !out.includes(id)) out.push(id);
    if (out.length >= EXCLUDE_SESSION_IDS_CAP) break;
  }
  return out;
}

/**
 * Checks what can be checked without the database (a session link naming another profile, a time
 * bound that is not one) and reduces `session_id` to a bare id. Throws StoreError('INVALID_ARGUMENTS').
 */
export function prepareArgs(input: TaskInput, now = Date.now() / 1000): PreparedCall {
  const args = { ...input.args };
  const changes = new Set(input.changes);
  if (typeof args.session_id === 'string') args.session_id = normalizeSessionId(args.session_id, input.profile);
  const call: PreparedCall = { args, profile: input.profile, changes, excludeIds: [] };
  // Hermes reads the bounds and exclusions in the discover shape only.
  const discovering = !(typeof args.session_id === 'string' && args.session_id !== '') && typeof args.query === 'string' && args.query.trim() !== '';
  if (discovering && changes.has('session_search_time_bounds')) {
    call.afterTs = parseTimeBound(args.after, now);
    call.beforeTs = parseTimeBound(args.before, now);
  }
  if (discovering && changes.has('session_search_exclude_ids')) call.excludeIds = normalizeExcludeIds(args.exclude_session_ids);
  return call;
}

// ---------------------------------------------------------------------------------------------
// The four modes
// ---------------------------------------------------------------------------------------------

/** Hermes 0.22 `_session_link`: what a person's client renders as a titled link to the session. */
function linkOf(call: PreparedCall, sessionId: string): string {
  return `@session:${call.profile}/${sessionId}`;
}

/** Hermes 0.22 `_coerce_started_ts`: sessions.started_at as unix seconds (number or ISO text), else undefined. */
function startedTs(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Math.trunc(value);
  const text = String(value).trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return Math.trunc(Number(text));
  try {
    return parseTimeBound(text, Date.now() / 1000);
  } catch {
    return undefined;
  }
}

/** Hermes 0.22 `_in_time_window`: after <= started < before; an unknown start fails any bound. */
function inTimeWindow(started: number | undefined, call: PreparedCall): boolean {
  if (call.afterTs === undefined && call.beforeTs === undefined) return true;
  if (started === undefined) return false;
  return (call.afterTs === undefined || started >= call.afterTs) && (call.beforeTs === undefined || started < call.beforeTs);
}

/**
 * Hermes `_title_match_result`: the query (outer quotes and backticks stripped) names a session's
 * title, so that session is a result anchored on its first live message. Hidden sources are not.
 * As in Hermes, an empty bookend (the window already reaches that end of the session) falls back to
 * the session's first/last three live messages, so a short session's bookends repeat its window.
 */
function titleMatch(store: SessionStore, query: string, call: PreparedCall) {
  const title = query.trim().replace(/^[`'"]+|[`'"]+$/g, '');
  if (title === '') return undefined;
  const sessionId = store.sessionByTitle(title);
  if (!sessionId) return undefined;
  const root = store.lineageRoot(sessionId);
  const meta = store.getSession(root) ?? store.getSession(sessionId);
  if (!meta || hiddenSources(call).includes(meta.source ?? '')) return undefined;
  const anchor = store.firstLiveMessage(sessionId);
  let view: AnchoredView = { window: [], messages_before: 0, messages_after: 0, bookend_start: [], bookend_end: [] };
  if (anchor !== undefined) {
    view = store.anchoredView(sessionId, anchor, DISCOVER_WINDOW, BOOKEND);
    if (view.bookend_start.length === 0) view.bookend_start = store.headTail(sessionId, BOOKEND, 0);
    if (view.bookend_end.length === 0) view.bookend_end = store.headTail(sessionId, 0, BOOKEND);
  }
  return { sessionId, root, meta, anchor, view, title: meta.title || title };
}

/** Hermes 0.22 `_discover_payload`'s `index_rebuild`, while Hermes rebuilds its search index. */
function indexRebuild(rebuild: IndexRebuild | null): Record<string, unknown> {
  if (!rebuild) return {};
  const n = (v: number) => v.toLocaleString('en-US');
  return {
    index_rebuild: {
      percent: rebuild.percent,
      note: `The search index is rebuilding in the background (${rebuild.percent}% done, ${n(rebuild.indexed)} of ${n(rebuild.total)} messages). Results from older messages may be incomplete until it finishes.`,
    },
  };
}

function discover(store: SessionStore, query: string, call: PreparedCall, limit: number, budget: number): Record<string, unknown> {
  const { args, changes } = call;
  const adaptive = changes.has('session_search_adaptive_detail');
  const detail = adaptive ? (args.detail === 'full' ? 'full' : 'adaptive') : undefined;
  const links = changes.has('session_search_links');
  const roles = args.role_filter
    ? args.role_filter
        .split(',')
        .map((r) => r.trim())
        .filter((r) => r !== '')
    : [];
  const sort = args.sort === 'newest' || args.sort === 'oldest' ? args.sort : undefined;
  // Hermes 0.22 `_excluded_lineage_roots`: the excluded ids and their lineage roots.
  const excluded = new Set(call.excludeIds.flatMap((id) => [id, store.lineageRoot(id) || id]));
  const { hits } = store.search(
    query,
    {
      roles: roles.length > 0 ? roles : ['user', 'assistant'],
      excludeSources: hiddenSources(call),
      limit: DISCOVER_SCAN_LIMIT,
      sort,
      ...(call.afterTs !== undefined ? { afterTs: call.afterTs } : {}),
      ...(call.beforeTs !== undefined ? { beforeTs: call.beforeTs } : {}),
    },
    {
      toolLikeScan: changes.has('session_search_tool_like_scan'),
      substringRetry: changes.has('session_search_substring_retry'),
      orRelaxed: changes.has('session_search_or_relaxed'),
      cjkWildcards: changes.has('session_search_cjk_wildcards'),
    },
  );
  let titled = titleMatch(store, query, call);
  // The title match bypasses the search's bounds: Hermes checks them again here.
  if (titled && (excluded.has(titled.sessionId) || excluded.has(titled.root) || !inTimeWindow(startedTs(titled.meta.started_at), call))) titled = undefined;
  const rebuild = indexRebuild(store.facts.rebuild);
  if (hits.length === 0 && !titled) {
    const message = changes.has('session_search_guidance_texts') ? NO_MATCH_GUIDANCE : NO_MATCH_MESSAGE;
    return { success: true, mode: 'discover', query, ...(detail ? { detail } : {}), results: [], count: 0, message, ...rebuild };
  }
  // Interactive sessions first, cron after; stable, so rank (or time) order holds within each class.
  const ordered = [...hits].sort((a, b) => Number(DEMOTED_SOURCES.has(a.source ?? '')) - Number(DEMOTED_SOURCES.has(b.source ?? '')));
  // A session whose title the query names comes first and takes its lineage's place.
  const seen = new Map<string, SearchHit | null>(titled ? [[titled.root, null]] : []);
  for (const hit of ordered) {
    if (seen.size >= limit) break;
    const root = store.lineageRoot(hit.session_id);
    if (excluded.has(hit.session_id) || excluded.has(root)) continue;
    if (!seen.has(root)) seen.set(root, hit);
  }
  const found: Array<{ root: string; hit: SearchHit; meta: SessionRow | undefined; view: AnchoredView; content: unknown; full: boolean }> = [];
  for (const [root, hit] of seen) {
    if (!hit) continue;
    // Hermes 0.22 adaptive detail: only the top result (a title match, else the first hit) is
    // hydrated; the others keep the anchor message alone, without bookends.
    const full = !adaptive || detail === 'full' || (!titled && found.length === 0);
    const view = store.anchoredView(hit.session_id, hit.id, DISCOVER_WINDOW, BOOKEND);
    const shown = full ? view : { ...view, window: view.window.filter((m) => m.id === hit.id), bookend_start: [], bookend_end: [] };
    found.push({ root, hit, meta: store.getSession(root), view: shown, content: store.messageContent(hit.id), full });
  }
  const shaper = new Shaper();
  const build = (tier: (typeof DISCOVER_TIERS)[number]) => {
    const results = found.map(({ root, hit, meta, view, content, full }) => {
      const entry = discoverResult(
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
      );
      if (adaptive) entry.detail = full ? 'full' : 'compact';
      if (links) entry.link = linkOf(call, hit.session_id);
      return entry;
    });
    if (titled) {
      const { sessionId, root, meta, anchor, view, title } = titled;
      const head = {
        session_id: sessionId,
        when: formatWhen(meta.started_at),
        source: meta.source || 'unknown',
        model: meta.model || 'unknown',
        title: redactBeforeCut(title),
        matched_role: 'session_title',
        match_message_id: anchor ?? null,
        snippet: `Session title matched: ${redactBeforeCut(title)}`,
      };
      const entry = discoverResult(shaper, tier, head, { view, anchor, root, keepBookend: () => true });
      if (adaptive) entry.detail = 'full';
      if (links) entry.link = linkOf(call, sessionId);
      results.unshift(entry);
    }
    return {
      success: true,
      mode: 'discover',
      query,
      ...(detail ? { detail } : {}),
      results,
      count: results.length,
      sessions_searched: seen.size,
      ...(links ? { link_hint: LINK_HINT } : {}),
      ...rebuild,
    };
  };
  return fit(DISCOVER_TIERS, build, budget, (t) => t.window);
}

function scroll(store: SessionStore, call: PreparedCall, sessionId: string, anchorId: number, windowArg: number | undefined, budget: number): Record<string, unknown> {
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
    ...(call.changes.has('session_search_guidance_texts') ? { hint: SCROLL_HINT } : {}),
    ...(warning ? { warning } : {}),
  }));
}

function read(store: SessionStore, call: PreparedCall, sessionId: string, budget: number): Record<string, unknown> {
  const meta = store.getSession(sessionId);
  if (!meta) throw new StoreError('HERMES_SESSION_NOT_FOUND', `session_id not found: ${sessionId}`, { session_id: sessionId });
  const total = store.countMessages(sessionId);
  const truncated = total > READ_HEAD + READ_TAIL;
  const rows = store.headTail(sessionId, truncated ? READ_HEAD : total, truncated ? READ_TAIL : 0);
  const contentCap = call.changes.has('session_search_read_cap') ? READ_MAX_CONTENT : Infinity;
  return fitTranscript(
    budget,
    (shaper, cap) => ({
      success: true,
      mode: 'read',
      session_id: sessionId,
      ...(call.changes.has('session_search_links') ? { link: linkOf(call, sessionId) } : {}),
      session_meta: sessionMeta(meta),
      message_count: total,
      truncated,
      messages: rows.map((m) => shaper.message(m, cap, undefined, Math.min(cap, contentCap))),
      ...(truncated
        ? { message: `Session has ${total} messages; showing first ${READ_HEAD} + last ${READ_TAIL}. Pass around_message_id (any id above) to scroll the middle.` }
        : {}),
    }),
    contentCap,
  );
}

function browse(store: SessionStore, call: PreparedCall, limit: number): Record<string, unknown> {
  const links = call.changes.has('session_search_links');
  const rows = call.changes.has('session_search_bounded_browse')
    ? store.boundedBrowse(hiddenSources(call), limit + BROWSE_HEADROOM, PREVIEW_SOURCE_CHARS).slice(0, limit)
    : store.browse(hiddenSources(call), limit, PREVIEW_SOURCE_CHARS);
  const results = rows.map((s) => {
    const raw = redactBeforeCut(plainContent(s.preview_raw ?? '')).trim();
    const cut = cutCodePoints(raw, PREVIEW_CHARS);
    return {
      session_id: s.id,
      ...(links ? { link: linkOf(call, s.id) } : {}),
      title: s.title || null,
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
  };
}

/** Runs one session_search call (from prepareArgs) against an open store. Throws StoreError for expected failures. */
export function runSessionSearch(store: SessionStore, call: PreparedCall, budgetChars: number): Record<string, unknown> {
  const { args } = call;
  const sessionId = typeof args.session_id === 'string' ? args.session_id : '';
  if (sessionId !== '' && args.around_message_id !== undefined && args.around_message_id !== null) {
    return scroll(store, call, sessionId, args.around_message_id, args.window, budgetChars);
  }
  if (sessionId !== '') return read(store, call, sessionId, budgetChars);
  const limit = clampInt(args.limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (query === '') return browse(store, call, limit);
  return discover(store, query, call, limit, budgetChars);
}
