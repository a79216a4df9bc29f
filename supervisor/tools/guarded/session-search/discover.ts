import { redactBeforeCut } from '../../../core/redaction.js';
import { hiddenSources, linkOf, parseTimeBound, type PreparedCall } from './args.js';
import { DISCOVER_TIERS, discoverResult, fit, formatWhen, isCompactionSummary, Shaper } from './shaper.js';
import type { AnchoredView, IndexRebuild, SearchHit, SessionRow, SessionStore } from './store.js';

// session_search's discover shape (Hermes `_discover`): FTS hits deduplicated by session lineage,
// a session whose title the query names first, each result with its anchored window and bookends
// (Hermes 0.22's adaptive detail hydrates only the top one), fitted to the output budget.

/** Searchable, but ranked below interactive sessions (`_DEMOTED_SESSION_SOURCES`). */
const DEMOTED_SOURCES = new Set(['cron']);
/** FTS rows discover scans before lineage dedup (`_DISCOVER_SCAN_LIMIT`). */
const DISCOVER_SCAN_LIMIT = 300;
const DISCOVER_WINDOW = 5;
const BOOKEND = 3;

const NO_MATCH_MESSAGE = 'No matching sessions found.';
/** Hermes 0.22's no-match message (tools/session_search_tool.py `_discover`). */
const NO_MATCH_GUIDANCE =
  'No matching sessions found. FTS5 ANDs all terms by default — broaden with OR (`alpha OR beta`), exact-match with quoted phrases, exclude with NOT, or prefix-match with `deploy*`.';
/** Hermes 0.22's discover `link_hint`. */
const LINK_HINT =
  'When referring the user to a session, write its `link` value verbatim inline mid-sentence (it renders as a titled link) — never as markdown, in backticks, on its own line, or next to the title/id/date. To read more around a compact result, scroll: session_search(session_id=..., around_message_id=match_message_id).';

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

type TitleMatch = NonNullable<ReturnType<typeof titleMatch>>;

/** One hydrated search hit: its lineage root, its session and the view shown of it. */
interface Found {
  root: string;
  hit: SearchHit;
  meta: SessionRow | undefined;
  view: AnchoredView;
  content: unknown;
  full: boolean;
}

/** The FTS hits of `query`, with the call's roles, hidden sources, sort and time bounds. */
function searchHits(store: SessionStore, query: string, call: PreparedCall): SearchHit[] {
  const { args, changes } = call;
  const roles = args.role_filter
    ? args.role_filter
        .split(',')
        .map((r) => r.trim())
        .filter((r) => r !== '')
    : [];
  const sort = args.sort === 'newest' || args.sort === 'oldest' ? args.sort : undefined;
  return store.search(
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
  ).hits;
}

/**
 * One hit per lineage, at most `limit` lineages, interactive sessions before cron (a stable sort, so
 * rank or time order holds within each class); a titled session takes its lineage's place (null).
 */
function pickSessions(store: SessionStore, hits: SearchHit[], titled: TitleMatch | undefined, excluded: ReadonlySet<string>, limit: number): Map<string, SearchHit | null> {
  const ordered = [...hits].sort((a, b) => Number(DEMOTED_SOURCES.has(a.source ?? '')) - Number(DEMOTED_SOURCES.has(b.source ?? '')));
  const seen = new Map<string, SearchHit | null>(titled ? [[titled.root, null]] : []);
  for (const hit of ordered) {
    if (seen.size >= limit) break;
    const root = store.lineageRoot(hit.session_id);
    if (excluded.has(hit.session_id) || excluded.has(root)) continue;
    if (!seen.has(root)) seen.set(root, hit);
  }
  return seen;
}

/**
 * The picked hits with their views. Hermes 0.22 adaptive detail: only the top result (a title
 * match, else the first hit) is hydrated; the others keep the anchor message alone, without bookends.
 */
function hydrate(store: SessionStore, seen: Map<string, SearchHit | null>, titled: boolean, adaptive: boolean, detail: string | undefined): Found[] {
  const found: Found[] = [];
  for (const [root, hit] of seen) {
    if (!hit) continue;
    const full = !adaptive || detail === 'full' || (!titled && found.length === 0);
    const view = store.anchoredView(hit.session_id, hit.id, DISCOVER_WINDOW, BOOKEND);
    const shown = full ? view : { ...view, window: view.window.filter((m) => m.id === hit.id), bookend_start: [], bookend_end: [] };
    found.push({ root, hit, meta: store.getSession(root), view: shown, content: store.messageContent(hit.id), full });
  }
  return found;
}

/** What every result of one discover call shares: its shaper, and the detail and links it shows. */
interface ResultStyle {
  shaper: Shaper;
  call: PreparedCall;
  adaptive: boolean;
  links: boolean;
}

function hitResult(style: ResultStyle, tier: (typeof DISCOVER_TIERS)[number], { root, hit, meta, view, content, full }: Found): Record<string, unknown> {
  const { shaper, call } = style;
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
  if (style.adaptive) entry.detail = full ? 'full' : 'compact';
  if (style.links) entry.link = linkOf(call, hit.session_id);
  return entry;
}

function titledResult(style: ResultStyle, tier: (typeof DISCOVER_TIERS)[number], { sessionId, root, meta, anchor, view, title }: TitleMatch): Record<string, unknown> {
  // The title is measured in the budget fit, so it is redacted before it is measured.
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
  const entry = discoverResult(style.shaper, tier, head, { view, anchor, root, keepBookend: () => true });
  if (style.adaptive) entry.detail = 'full';
  if (style.links) entry.link = linkOf(style.call, sessionId);
  return entry;
}

export function discover(store: SessionStore, query: string, call: PreparedCall, limit: number, budget: number): Record<string, unknown> {
  const { args, changes } = call;
  const adaptive = changes.has('session_search_adaptive_detail');
  const detail = adaptive ? (args.detail === 'full' ? 'full' : 'adaptive') : undefined;
  const links = changes.has('session_search_links');
  // Hermes 0.22 `_excluded_lineage_roots`: the excluded ids and their lineage roots.
  const excluded = new Set(call.excludeIds.flatMap((id) => [id, store.lineageRoot(id) || id]));
  const hits = searchHits(store, query, call);
  let titled = titleMatch(store, query, call);
  // The title match bypasses the search's bounds: Hermes checks them again here.
  if (titled && (excluded.has(titled.sessionId) || excluded.has(titled.root) || !inTimeWindow(startedTs(titled.meta.started_at), call))) titled = undefined;
  const rebuild = indexRebuild(store.facts.rebuild);
  if (hits.length === 0 && !titled) {
    const message = changes.has('session_search_guidance_texts') ? NO_MATCH_GUIDANCE : NO_MATCH_MESSAGE;
    return { success: true, mode: 'discover', query, ...(detail ? { detail } : {}), results: [], count: 0, message, ...rebuild };
  }
  const seen = pickSessions(store, hits, titled, excluded, limit);
  const found = hydrate(store, seen, titled !== undefined, adaptive, detail);
  const style: ResultStyle = { shaper: new Shaper(), call, adaptive, links };
  const build = (tier: (typeof DISCOVER_TIERS)[number]) => {
    const results = found.map((f) => hitResult(style, tier, f));
    if (titled) results.unshift(titledResult(style, tier, titled));
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
