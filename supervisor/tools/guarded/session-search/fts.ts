// FTS5 query handling for session_search: Hermes' query sanitizer and its CJK routing
// (hermes_state `_sanitize_fts5_query`, `_contains_cjk`, `_count_cjk`, `_has_short_cjk_token`,
// `_quote_fts_tokens`), and Hermes 0.22's retries and substring scans (hermes_state_search.py
// `_or_relaxed_query`, `_trigram_eligible_tokens`, `_strip_cjk_wildcards`,
// `_compile_like_boolean_query`, `_search_unindexed_gap`'s terms), ported to JavaScript. Pure
// functions: no database access here.

/** Hermes' `MAX_FTS5_QUERY_CHARS`. The gateway rejects longer queries instead of cutting them. */
export const MAX_QUERY_CHARS = 2048;
/** Hermes 0.22's cap on discover's `exclude_session_ids` (tools/session_search_tool.py `_EXCLUDE_SESSION_IDS_CAP`). */
export const EXCLUDE_SESSION_IDS_CAP = 20;

const FTS_OPERATORS = new Set(['AND', 'OR', 'NOT']);

// Characters FTS5's query grammar rejects outside a quoted phrase. hermes-agent 0.19.0 strips only
// `+{}():"^` and lets the others reach FTS5, whose syntax error it answers as "no matches"; the gateway
// neutralises them all so such a query still finds its words (an intended divergence,
// session-search-fts-punctuation). `%` is handled separately: the CJK LIKE route needs it literal.
const FTS5_SPECIAL_RE = /[+{}():"^@/#&|~[\]<>,;!?$=\\']/g;
const QUOTED_PHRASE_RE = /"[^"]*"/g;
// Python's `\b(\w+(?:[._-]\w+)+)\b` with Unicode `\w` (JS `\b`/`\w` are ASCII-only, even with /u).
const COMPOUND_TERM_RE = /(?<![\p{L}\p{N}_])([\p{L}\p{N}_]+(?:[._-][\p{L}\p{N}_]+)+)(?![\p{L}\p{N}_])/gu;

// Unified Ideographs, Extension A, Extension B, CJK Symbols, Hiragana, Katakana, Hangul Syllables.
const CJK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x4e00, 0x9fff],
  [0x3400, 0x4dbf],
  [0x20000, 0x2a6df],
  [0x3000, 0x303f],
  [0x3040, 0x309f],
  [0x30a0, 0x30ff],
  [0xac00, 0xd7af],
];

function isCjk(cp: number): boolean {
  for (const [lo, hi] of CJK_RANGES) if (cp >= lo && cp <= hi) return true;
  return false;
}

export function countCjk(text: string): number {
  let n = 0;
  for (const ch of text) if (isCjk(ch.codePointAt(0)!)) n++;
  return n;
}

export function containsCjk(text: string): boolean {
  for (const ch of text) if (isCjk(ch.codePointAt(0)!)) return true;
  return false;
}

/** Python `str.strip('"')` followed by `.strip()`. */
export function stripOuterQuotes(text: string): string {
  return text.replace(/^"+|"+$/g, '').trim();
}

export function nonOperatorTokens(raw: string): string[] {
  return raw.split(/\s+/).filter((t) => t !== '' && !FTS_OPERATORS.has(t.toUpperCase()));
}

/** Quote every non-operator token (neutralising FTS5 syntax), keeping AND/OR/NOT. */
export function quoteFtsTokens(raw: string): string {
  return raw
    .split(/\s+/)
    .filter((t) => t !== '')
    .map((t) => (FTS_OPERATORS.has(t.toUpperCase()) ? t : `"${t.replace(/"/g, '""')}"`))
    .join(' ');
}

/**
 * Hermes' sanitizer: keep balanced quoted phrases, drop characters FTS5 rejects, collapse `*` runs
 * and leading `*`, drop dangling boolean operators, and quote dotted/hyphenated/underscored terms so
 * `chat-send` or `P2.2` match as phrases instead of splitting. May return '' (nothing searchable).
 */
export function sanitizeFtsQuery(query: string): string {
  const held: string[] = [];
  let s = query.slice(0, MAX_QUERY_CHARS).replace(QUOTED_PHRASE_RE, (m) => {
    held.push(m);
    return `\u0000Q${held.length - 1}\u0000`;
  });
  s = s.replace(/"/g, ' ');
  s = s.replace(FTS5_SPECIAL_RE, ' ');
  if (s.includes('%') && !containsCjk(s)) s = s.replace(/%/g, ' ');
  s = s.replace(/\*+/g, '*').replace(/(^|\s)\*/g, '$1');
  s = s.trim().replace(/^(AND|OR|NOT)\b\s*/i, '');
  s = s.trim().replace(/\s+(AND|OR|NOT)\s*$/i, '');
  s = s.replace(COMPOUND_TERM_RE, '"$1"');
  held.forEach((phrase, i) => {
    s = s.split(`\u0000Q${i}\u0000`).join(phrase);
  });
  return s.trim();
}

/**
 * The trigram index needs at least three characters per token: `广西 OR 桂林` has four CJK
 * characters but only two per token, so it would match nothing there (Hermes `_trigram_route_ok`).
 */
export function trigramServesCjk(raw: string): boolean {
  if (countCjk(raw) < 3) return false;
  return !nonOperatorTokens(raw).some((t) => containsCjk(t) && countCjk(t) < 3);
}

/** Escape `%`, `_` and `\` for `LIKE … ESCAPE '\'`. */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

// ---------------------------------------------------------------------------------------------
// Hermes 0.22's retries and substring scans (hermes_state_search.py)
// ---------------------------------------------------------------------------------------------

/** `_LIKE_TOKEN_RE`: a quoted phrase or a run of non-space characters. */
const LIKE_TOKEN_RE = /"[^"]+"|\S+/g;
/** `_LIKE_SKIP_TOKENS`: operators, never terms. */
const LIKE_SKIP_TOKENS = new Set(['AND', 'OR', 'NOT', 'NEAR']);

function likeTokens(query: string): string[] {
  return query.match(LIKE_TOKEN_RE) ?? [];
}

/** Python `t.strip('"').strip('*').strip()`. */
function bareTerm(token: string): string {
  return token.replace(/^"+|"+$/g, '').replace(/^\*+|\*+$/g, '').trim();
}

/** Python `len()`: code points. */
function codePoints(text: string): number {
  return [...text].length;
}

/**
 * `_or_relaxed_query`: the sanitized implicit-AND query with its terms ORed, or undefined where it
 * does not apply (fewer than two terms, or an explicit OR/NOT). Quoted phrases stay whole.
 */
export function orRelaxedQuery(query: string): string | undefined {
  const units: string[] = [];
  for (const token of likeTokens(query)) {
    const upper = token.toUpperCase();
    if (upper === 'OR' || upper === 'NOT') return undefined;
    if (upper !== 'AND') units.push(token);
  }
  return units.length >= 2 ? units.join(' OR ') : undefined;
}

/** `_trigram_eligible_tokens`: every non-operator token has 3+ characters (a shorter one has no trigram). */
export function trigramEligibleTokens(query: string): boolean {
  const tokens = nonOperatorTokens(stripOuterQuotes(query));
  return tokens.length > 0 && tokens.every((t) => codePoints(t) >= 3);
}

/** `_strip_cjk_wildcards`: a token's trailing prefix `*` goes (no CJK route can honour it); an all-star token stays. */
export function stripCjkWildcards(raw: string): string {
  if (!raw.includes('*')) return raw;
  const out = raw
    .split(/\s+/)
    .filter((t) => t !== '')
    .map((t) => (FTS_OPERATORS.has(t.toUpperCase()) ? t : t.replace(/\*+$/, '') || t));
  return out.join(' ') || raw;
}

/** One LIKE term of the boolean subset, negated or not. */
export interface LikeTerm {
  term: string;
  negated: boolean;
}

/**
 * `_compile_like_boolean_query`: the FTS boolean subset as OR-groups of ANDed terms (`NOT`
 * negates the next term; a group without a positive term is dropped), and the first positive term
 * (the snippet's anchor). Undefined when nothing searchable is left.
 */
export function likeBooleanQuery(query: string): { groups: LikeTerm[][]; snippetTerm: string } | undefined {
  const groups: LikeTerm[][] = [[]];
  let negateNext = false;
  for (const token of likeTokens(query)) {
    const op = token.toUpperCase();
    if (op === 'OR') {
      if (groups[groups.length - 1]!.length > 0) groups.push([]);
      negateNext = false;
      continue;
    }
    if (op === 'AND' || op === 'NEAR') continue;
    if (op === 'NOT') {
      negateNext = true;
      continue;
    }
    const term = bareTerm(token);
    if (term !== '') {
      groups[groups.length - 1]!.push({ term, negated: negateNext });
      negateNext = false;
    }
  }
  const kept = groups.filter((g) => g.some((t) => !t.negated));
  const snippetTerm = kept.flat().find((t) => !t.negated)?.term;
  return snippetTerm === undefined ? undefined : { groups: kept, snippetTerm };
}

/** `_search_unindexed_gap`'s terms: every non-operator token, unquoted and without `*`, ANDed by the caller. */
export function gapTerms(query: string): string[] {
  return likeTokens(query)
    .map(bareTerm)
    .filter((t) => t !== '' && !LIKE_SKIP_TOKENS.has(t.toUpperCase()));
}
