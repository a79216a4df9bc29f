import { stripAnsi } from '../../../../shared/output-cap.js';
import { redact, redactDeep } from '../../../../shared/redact.js';
import { SessionStore, StoreError, type AnchoredView, type MessageRow, type SearchHit, type SessionRow } from './store.js';

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

const HISTORICAL_NOTE =
  'Historical context from the local Hermes session database (read-only): it records what was said in past conversations at the time, ' +
  'not proof of the current state of any file, service or external source. Check the original source when it is accessible.';

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
/** Generated context-compaction handoffs are not conversation openings/closings (Hermes #43175). */
const COMPACTION_PREFIXES = ['[CONTEXT COMPACTION', '[CONTEXT SUMMARY]:'];

/** Per-message content caps, widest first; the first tier whose answer fits the budget is used. */
const DISCOVER_TIERS = [
  { window: 4000, bookend: 1200 },
  { window: 2000, bookend: 600 },
  { window: 1000, bookend: 300 },
  { window: 500, bookend: 150 },
  { window: 250, bookend: 100 },
  { window: 100, bookend: 50 },
];
const TRANSCRIPT_TIERS = [Infinity, 8000, 4000, 2000, 1000, 500, 250, 100];

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function clampInt(value: number | undefined, fallback: number, lo: number, hi: number): number {
  const n = typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback;
  return Math.max(lo, Math.min(n, hi));
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Hermes `_format_timestamp`: local time as `%B %d, %Y at %I:%M %p`; `unknown` for none. */
function formatWhen(ts: unknown): string {
  if (ts === null || ts === undefined) return 'unknown';
  let n: number;
  if (typeof ts === 'number') n = ts;
  else if (typeof ts === 'string' && /^[\d.-]+$/.test(ts)) n = Number(ts);
  else return String(ts);
  const d = new Date(n * 1000);
  if (!Number.isFinite(n) || Number.isNaN(d.getTime())) return String(ts);
  const pad = (v: number) => String(v).padStart(2, '0');
  const h12 = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12;
  return `${MONTHS[d.getMonth()]} ${pad(d.getDate())}, ${d.getFullYear()} at ${pad(h12)}:${pad(d.getMinutes())} ${d.getHours() < 12 ? 'AM' : 'PM'}`;
}

/** What Hermes prefixes to structured (multimodal) message content it stores as JSON (`SessionDB._encode_content`). */
export const CONTENT_JSON_PREFIX = '\u0000json:';

/**
 * Stored content as text: a list of parts (`\0json:[{type: 'text', ...}, {type: 'image_url', ...}]`)
 * becomes its text parts joined, or `[multimodal content]`, as Hermes' own previews render it
 * (hermes_state `list_recent_user_messages`); undecodable JSON stays as stored, as Hermes leaves it.
 */
export function plainContent(text: string): string {
  if (!text.startsWith(CONTENT_JSON_PREFIX)) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(CONTENT_JSON_PREFIX.length));
  } catch {
    return text;
  }
  if (Array.isArray(parsed)) {
    const parts = parsed.flatMap((p) => (p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string' ? [(p as { text: string }).text] : []));
    return parts.filter((t) => t !== '').join(' ').trim() || '[multimodal content]';
  }
  return typeof parsed === 'string' ? parsed : JSON.stringify(parsed);
}

function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return plainContent(value);
  if (Buffer.isBuffer(value)) return plainContent(value.toString('utf8'));
  return String(value);
}

/** The first `max` code points of `text`, and whether anything was cut. */
function cutCodePoints(text: string, max: number): { text: string; cut: boolean; chars: number } {
  if (!Number.isFinite(max) || text.length <= max) return { text, cut: false, chars: [...text].length };
  const points = [...text];
  if (points.length <= max) return { text, cut: false, chars: points.length };
  return { text: points.slice(0, max).join(''), cut: true, chars: points.length };
}

function isCompactionSummary(content: unknown): boolean {
  const text = asText(content);
  if (!text) return false;
  const s = text.trimStart();
  return COMPACTION_PREFIXES.some((p) => s.startsWith(p));
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
// Message shaping (Hermes `_shape_message`), with redaction before any cut
// ---------------------------------------------------------------------------------------------

class Shaper {
  private readonly contents = new Map<number, string | null>();
  private readonly toolCalls = new Map<number, unknown>();

  /** Redacted, ANSI-free content of a message (computed once per message). */
  content(m: MessageRow): string | null {
    if (this.contents.has(m.id)) return this.contents.get(m.id)!;
    let text = asText(m.content);
    if (text !== null) {
      if (text.includes('\x1b')) text = stripAnsi(text);
      text = redact(text);
    }
    this.contents.set(m.id, text);
    return text;
  }

  private calls(m: MessageRow): unknown {
    if (this.toolCalls.has(m.id)) return this.toolCalls.get(m.id);
    let parsed: unknown = null;
    if (m.tool_calls) {
      try {
        parsed = JSON.parse(m.tool_calls);
      } catch {
        parsed = []; // Hermes falls back to [] for undecodable tool_calls
      }
      parsed = redactDeep(parsed);
    }
    this.toolCalls.set(m.id, parsed);
    return parsed;
  }

  message(m: MessageRow, cap: number, anchorId?: number): Record<string, unknown> {
    const entry: Record<string, unknown> = { id: m.id, role: m.role };
    const content = this.content(m);
    let cut: ReturnType<typeof cutCodePoints> | undefined;
    if (content !== null) {
      cut = cutCodePoints(content, cap);
      entry.content = cut.cut ? `${cut.text}…` : cut.text;
    } else {
      entry.content = null; // absent content is meaningful (tool-call-only assistant turns)
    }
    if (m.timestamp !== null && m.timestamp !== undefined) entry.timestamp = m.timestamp;
    if (m.tool_name) entry.tool_name = m.tool_name;
    const calls = this.calls(m);
    if (calls && (!Array.isArray(calls) || calls.length > 0)) {
      const json = JSON.stringify(calls);
      if (json.length > cap) {
        entry.tool_calls = `${cutCodePoints(json, cap).text}…`;
        entry.tool_calls_truncated = true;
      } else entry.tool_calls = calls;
    }
    if (m.tool_call_id) entry.tool_call_id = m.tool_call_id;
    if (anchorId !== undefined && m.id === anchorId) entry.anchor = true;
    if (cut?.cut) {
      entry.content_truncated = true;
      entry.original_content_chars = cut.chars;
    }
    return entry;
  }

  /**
   * A snippet is a window cut out of a message, so a secret it crosses may be missing the prefix the
   * redactor recognises. Any word of 6+ characters that redacting the whole message removed is
   * masked in the snippet too.
   */
  snippet(snippet: string | null, rawContent: unknown): string {
    if (!snippet) return '';
    // FTS indexes the stored text, so a multimodal message's snippet is a window of its JSON.
    snippet = snippet.replaceAll(CONTENT_JSON_PREFIX, '');
    const raw = asText(rawContent);
    if (raw !== null) {
      const redacted = redact(raw);
      if (redacted !== raw) {
        snippet = snippet.replace(/[\p{L}\p{N}]{6,}/gu, (run) => (raw.includes(run) && !redacted.includes(run) ? '***' : run));
      }
    }
    return redact(snippet);
  }
}

// ---------------------------------------------------------------------------------------------
// Fitting an answer into the output budget
// ---------------------------------------------------------------------------------------------

function fit<T>(tiers: readonly T[], build: (tier: T) => Record<string, unknown>, budget: number, limitOf: (tier: T) => number): Record<string, unknown> {
  let payload: Record<string, unknown> = {};
  for (let i = 0; i < tiers.length; i++) {
    payload = build(tiers[i]!);
    if (i > 0) payload.content_limit_chars = limitOf(tiers[i]!);
    if (JSON.stringify(payload).length <= budget) return payload;
  }
  // Still too large at the narrowest tier: the gateway's own cap replaces it with a valid JSON
  // truncation receipt, which is the honest answer for a result that cannot be shortened further.
  return payload;
}

function sessionMeta(meta: SessionRow): Record<string, unknown> {
  return { when: formatWhen(meta.started_at), source: meta.source, model: meta.model, title: meta.title };
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
    const results = found.map(({ root, hit, meta, view, content }) => {
      const entry: Record<string, unknown> = {
        session_id: hit.session_id,
        when: formatWhen(meta?.started_at ?? hit.session_started),
        source: meta?.source || hit.source || 'unknown',
        model: meta?.model || hit.model || 'unknown',
        title: meta?.title || null,
        matched_role: hit.role,
        match_message_id: hit.id,
        snippet: shaper.snippet(hit.snippet, content),
        bookend_start: view.bookend_start.filter((m) => !isCompactionSummary(m.content)).map((m) => shaper.message(m, tier.bookend)),
        messages: view.window.map((m) => shaper.message(m, tier.window, hit.id)),
        bookend_end: view.bookend_end.filter((m) => !isCompactionSummary(m.content)).map((m) => shaper.message(m, tier.bookend)),
        messages_before: view.messages_before,
        messages_after: view.messages_after,
      };
      if (root && root !== hit.session_id) entry.parent_session_id = root;
      return entry;
    });
    if (titled) {
      const { sessionId, root, meta, anchor, view, title } = titled;
      const entry: Record<string, unknown> = {
        session_id: sessionId,
        when: formatWhen(meta.started_at),
        source: meta.source || 'unknown',
        model: meta.model || 'unknown',
        title: redact(title),
        matched_role: 'session_title',
        match_message_id: anchor ?? null,
        snippet: `Session title matched: ${redact(title)}`,
        bookend_start: view.bookend_start.map((m) => shaper.message(m, tier.bookend)),
        messages: view.window.map((m) => shaper.message(m, tier.window, anchor)),
        bookend_end: view.bookend_end.map((m) => shaper.message(m, tier.bookend)),
        messages_before: view.messages_before,
        messages_after: view.messages_after,
      };
      if (root !== sessionId) entry.parent_session_id = root;
      results.unshift(entry);
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
  const shaper = new Shaper();
  const build = (cap: number) => {
    const payload: Record<string, unknown> = {
      success: true,
      mode: 'scroll',
      session_id: sessionId,
      around_message_id: anchorId,
      session_meta: sessionMeta(meta),
      window,
      messages: view.window.map((m) => shaper.message(m, cap, anchorId)),
      messages_before: view.messages_before,
      messages_after: view.messages_after,
    };
    if (warning) payload.warning = warning;
    payload.note = HISTORICAL_NOTE;
    return payload;
  };
  return fit(TRANSCRIPT_TIERS, build, budget, (cap) => cap);
}

function read(store: SessionStore, sessionId: string, budget: number): Record<string, unknown> {
  const meta = store.getSession(sessionId);
  if (!meta) throw new StoreError('HERMES_SESSION_NOT_FOUND', `session_id not found: ${sessionId}`, { session_id: sessionId });
  const total = store.countMessages(sessionId);
  const truncated = total > READ_HEAD + READ_TAIL;
  const rows = store.headTail(sessionId, truncated ? READ_HEAD : total, truncated ? READ_TAIL : 0);
  const shaper = new Shaper();
  const build = (cap: number) => {
    const payload: Record<string, unknown> = {
      success: true,
      mode: 'read',
      session_id: sessionId,
      session_meta: sessionMeta(meta),
      message_count: total,
      truncated,
      messages: rows.map((m) => shaper.message(m, cap)),
    };
    if (truncated) {
      payload.message = `Session has ${total} messages; showing first ${READ_HEAD} + last ${READ_TAIL}. Pass around_message_id (any id above) to scroll the middle.`;
    }
    payload.note = HISTORICAL_NOTE;
    return payload;
  };
  return fit(TRANSCRIPT_TIERS, build, budget, (cap) => cap);
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
