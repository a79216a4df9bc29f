import { redactBeforeCut } from '../../../core/redaction.js';
import { clampInt, hiddenSources, linkOf, type PreparedCall } from './args.js';
import { discover } from './discover.js';
import { cutCodePoints, fitTranscript, plainContent, sessionMeta } from './shaper.js';
import { StoreError, type SessionStore } from './store.js';

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
// The arguments: args.ts; discover: discover.ts; how a message and an answer are shaped
// (redaction, caps, the output budget): shaper.ts.


const DEFAULT_LIMIT = 3;
const MAX_LIMIT = 10;
const DEFAULT_WINDOW = 5;
const MAX_WINDOW = 20;
const READ_HEAD = 20;
const READ_TAIL = 10;
const PREVIEW_CHARS = 60;
/** How much of the first user message browse reads: enough to redact a secret the preview cuts. */
const PREVIEW_SOURCE_CHARS = 400;
/** Hermes 0.22's per-message content cap of the read shape (`_READ_MAX_CONTENT`). */
const READ_MAX_CONTENT = 2000;
/** Hermes 0.22 asks its bounded browse for this many more sessions than it shows. */
const BROWSE_HEADROOM = 15;

/** Hermes 0.22's scroll `hint`. */
const SCROLL_HINT =
  "Scroll forward: re-call with around_message_id = the LAST message's id; backward: the FIRST message's id (the boundary message repeats as an orientation marker). messages_before/messages_after < window means you've hit that end of the session.";

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
