import type { HermesChangeName } from '../../../platform/hermes/release.js';
import { EXCLUDE_SESSION_IDS_CAP } from './fts.js';
import { StoreError } from './store.js';

// A session_search call's arguments, checked and normalised before the database is opened: a
// session link reduced to its id (a link to another profile refused), discover's time bounds
// parsed and its exclusions deduplicated, as the followed Hermes does.

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
export function hiddenSources(call: PreparedCall): readonly string[] {
  return call.changes.has('session_search_kanban_hidden') ? ['kanban', 'subagent', 'tool'] : ['subagent', 'tool'];
}

/** `_RELATIVE_BOUND_RE` / `_RELATIVE_UNIT_SECONDS`: 7d, 24h, 2w. */
const RELATIVE_BOUND_RE = /^(\d+)\s*([hdw])$/i;
const RELATIVE_UNIT_SECONDS: Record<string, number> = { h: 3600, d: 86_400, w: 604_800 };

export function clampInt(value: number | undefined, fallback: number, lo: number, hi: number): number {
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
export function parseTimeBound(value: string | undefined, now: number): number | undefined {
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

/** Hermes 0.22 `_session_link`: what a person's client renders as a titled link to the session. */
export function linkOf(call: PreparedCall, sessionId: string): string {
  return `@session:${call.profile}/${sessionId}`;
}
