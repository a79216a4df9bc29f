import { stripAnsi } from '../../../../shared/output-cap.js';
import { redactBeforeCut, redactStructureBeforeCut, redactWindow } from '../../../core/redaction.js';
import type { AnchoredView, MessageRow, SessionRow } from './store.js';

// How session_search shows what it read (shapes.ts runs the modes): messages as Hermes'
// `_shape_message` shapes them, redacted before anything is cut, and an answer fitted to the
// output budget by capping each message's content at the widest tier that fits.

/** Generated context-compaction handoffs are not conversation openings/closings (Hermes #43175). */
const COMPACTION_PREFIXES = ['[CONTEXT COMPACTION', '[CONTEXT SUMMARY]:'];

/** Per-message content caps, widest first; the first tier whose answer fits the budget is used. */
export const DISCOVER_TIERS = [
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

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Hermes `_format_timestamp`: local time as `%B %d, %Y at %I:%M %p`; `unknown` for none. */
export function formatWhen(ts: unknown): string {
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
export function cutCodePoints(text: string, max: number): { text: string; cut: boolean; chars: number } {
  if (!Number.isFinite(max) || text.length <= max) return { text, cut: false, chars: [...text].length };
  const points = [...text];
  if (points.length <= max) return { text, cut: false, chars: points.length };
  return { text: points.slice(0, max).join(''), cut: true, chars: points.length };
}

export function isCompactionSummary(content: unknown): boolean {
  const text = asText(content);
  if (!text) return false;
  const s = text.trimStart();
  return COMPACTION_PREFIXES.some((p) => s.startsWith(p));
}

// ---------------------------------------------------------------------------------------------
// Message shaping (Hermes `_shape_message`), with redaction before any cut
// ---------------------------------------------------------------------------------------------

export class Shaper {
  private readonly contents = new Map<number, string | null>();
  private readonly toolCalls = new Map<number, unknown>();

  /** Redacted, ANSI-free content of a message (computed once per message). */
  content(m: MessageRow): string | null {
    if (this.contents.has(m.id)) return this.contents.get(m.id)!;
    let text = asText(m.content);
    if (text !== null) {
      if (text.includes('\x1b')) text = stripAnsi(text);
      text = redactBeforeCut(text);
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
      parsed = redactStructureBeforeCut(parsed);
    }
    this.toolCalls.set(m.id, parsed);
    return parsed;
  }

  /** `cap` limits the content and the tool calls; `contentCap` (default `cap`) the content alone where Hermes caps it tighter. */
  message(m: MessageRow, cap: number, anchorId?: number, contentCap = cap): Record<string, unknown> {
    const entry: Record<string, unknown> = { id: m.id, role: m.role };
    const content = this.content(m);
    let cut: ReturnType<typeof cutCodePoints> | undefined;
    if (content !== null) {
      cut = cutCodePoints(content, contentCap);
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

  /** A snippet is a window cut out of a message: redacted as one (core/redaction.ts redactWindow). */
  snippet(snippet: string | null, rawContent: unknown): string {
    if (!snippet) return '';
    // FTS indexes the stored text, so a multimodal message's snippet is a window of its JSON.
    return redactWindow(snippet.replaceAll(CONTENT_JSON_PREFIX, ''), asText(rawContent));
  }
}

// ---------------------------------------------------------------------------------------------
// Fitting an answer into the output budget
// ---------------------------------------------------------------------------------------------

export function fit<T>(tiers: readonly T[], build: (tier: T) => Record<string, unknown>, budget: number, limitOf: (tier: T) => number): Record<string, unknown> {
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

export function sessionMeta(meta: SessionRow): Record<string, unknown> {
  return { when: formatWhen(meta.started_at), source: meta.source, model: meta.model, title: meta.title };
}

/**
 * A transcript answer (scroll, read): `build`'s fields with each message's content capped at the
 * widest tier that fits the budget. `contentCap`: the followed Hermes' own
 * cap on each content (Hermes 0.22's read: 2000), below every tier; the answer's
 * `content_limit_chars` says the tighter of the two when a narrower tier was needed.
 */
export function fitTranscript(budget: number, build: (shaper: Shaper, cap: number) => Record<string, unknown>, contentCap = Infinity): Record<string, unknown> {
  const shaper = new Shaper();
  return fit(TRANSCRIPT_TIERS, (cap) => build(shaper, cap), budget, (cap) => Math.min(cap, contentCap));
}

type DiscoverTier = (typeof DISCOVER_TIERS)[number];

/**
 * One discover result: `head` (which session, what matched), then its anchored view at the tier's
 * caps (bookends only where `keepBookend` says), and the lineage root when it is another session.
 */
export function discoverResult(
  shaper: Shaper,
  tier: DiscoverTier,
  head: Record<string, unknown>,
  { view, anchor, root, keepBookend }: { view: AnchoredView; anchor: number | undefined; root: string; keepBookend: (m: MessageRow) => boolean },
): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    ...head,
    bookend_start: view.bookend_start.filter(keepBookend).map((m) => shaper.message(m, tier.bookend)),
    messages: view.window.map((m) => shaper.message(m, tier.window, anchor)),
    bookend_end: view.bookend_end.filter(keepBookend).map((m) => shaper.message(m, tier.bookend)),
    messages_before: view.messages_before,
    messages_after: view.messages_after,
  };
  if (root && root !== head.session_id) entry.parent_session_id = root;
  return entry;
}
