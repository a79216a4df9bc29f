// Pass 1 of shared/redact.ts: credentials recognised by their shape, compiled from the format
// table in formats.ts into one linear regex.

import { SECRET_FORMATS, type SecretFormat } from './formats.js';
import { OUTPUT_MASKER, type Masker } from './mask.js';

// ---------------------------------------------------------------------------------------------
// Pass 1: known credential formats
// ---------------------------------------------------------------------------------------------

// Every format's literal (a substring each of its matches contains), as one alternation: the
// gate that lets text without any of them skip the format regex. One regex scan is ~6x cheaper
// than a `includes` per literal, and exact: wherever some literal occurs, some alternative matches.
const LITERAL_GATE_RE = new RegExp([...new Set(SECRET_FORMATS.map((f) => f.literal))].map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));

// Leading word boundary: a preceding token character means the "prefix" is the middle of some
// other identifier (`mysk-…`, `task_…`), not a key. It also makes every attempt start at the
// beginning of a run, so a long run is scanned once. Exception, as in Hermes: JSON-escaped text
// (JSONL transcripts, `ensure_ascii` bodies) puts a key right after `\n` or `\u00e9`, whose last
// byte is alphanumeric; without these reliefs a key on the second line of an escaped string leaks.
const TOKEN_LEAD = String.raw`(?:(?<![A-Za-z0-9_-])|(?<=\\[A-Za-z])|(?<=\\u[0-9A-Fa-f]{4})|(?<=\\x[0-9A-Fa-f]{2}))`;

// Each format is one named group (`f<index>`), so a match tells which format it was; a `value`
// format also names its secret part (`v<index>`), the only part that is masked.
function alternative(format: SecretFormat, index: number): string {
  if (format.mask === 'token') return `(?<f${index}>${format.pattern})`;
  return `(?<f${index}>${format.lead}(?<v${index}>${format.pattern}))`;
}

export const PREFIX_RE = new RegExp(
  `${TOKEN_LEAD}(?:${SECRET_FORMATS.map(alternative).join('|')})(?![A-Za-z0-9_-])`,
  'g',
);

function hasKnownPrefix(text: string): boolean {
  return LITERAL_GATE_RE.test(text);
}

/** The index in SECRET_FORMATS of the format a PREFIX_RE match belongs to (its named groups), or -1. */
function matchedIndex(groups: Record<string, string | undefined>): number {
  for (let i = 0; i < SECRET_FORMATS.length; i++) if (groups[`f${i}`] !== undefined) return i;
  return -1;
}

/** The format a PREFIX_RE match belongs to (its named groups), or undefined. */
export function matchedFormat(groups: Record<string, string | undefined>): SecretFormat | undefined {
  return SECRET_FORMATS[matchedIndex(groups)];
}

/** Masks one PREFIX_RE match as its format says: the whole token, or only the value after its lead. */
function maskMatch(match: string, groups: Record<string, string | undefined>, masker: Masker): string {
  const index = matchedIndex(groups);
  if (SECRET_FORMATS[index]?.mask !== 'value') return masker.token(match);
  // A value format's secret has no prefix of its own and no backslash (its class has none).
  const secret = groups[`v${index}`] ?? match;
  return match.slice(0, match.length - secret.length) + masker.value(secret);
}

export function redactKnownFormats(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!hasKnownPrefix(text)) return text;
  text = redactControlSplitTokens(text, masker);
  return text.replace(PREFIX_RE, (match: string, ...rest: unknown[]) =>
    maskMatch(match, rest[rest.length - 1] as Record<string, string | undefined>, masker),
  );
}

// ---------------------------------------------------------------------------------------------
// Pass 1a: keys split by control or zero-width characters (newer Hermes,
// agent/redact.py `_mask_control_split_tokens`, upstream #77484)
// ---------------------------------------------------------------------------------------------

// Hermes `_CONTROL_CHARS_RE`: characters that can sit inside a key's body (`sk-abc\x1bdef…`,
// `ghp_abc\u200b123…`) and so keep the contiguous pattern from matching it.
const CONTROL_CHAR_RE = /[\x00-\x1f\x7f\u200b-\u200f\u2028-\u202f\u2060\ufeff]/;

function isControl(code: number): boolean {
  return code <= 0x1f || code === 0x7f || (code >= 0x200b && code <= 0x200f) || (code >= 0x2028 && code <= 0x202f) || code === 0x2060 || code === 0xfeff;
}

// Hermes `_TOKEN_BODY_CHARS`: a joined span may hold only these (and control characters). No `=`,
// so a name's separator never lets a match run into unrelated text.
function isTokenBody(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x2d || code === 0x2e;
}

/** PREFIX_RE for scans of its own (a copy, so its lastIndex is nobody else's). */
const SPLIT_SCAN_RE = new RegExp(PREFIX_RE.source, 'g');
const SELF_MATCH_RE = new RegExp(PREFIX_RE.source);

/**
 * Keys whose body a control or zero-width character splits, masked as Hermes masks them: the
 * format regex runs on a copy without those characters, and each match is mapped back to its span
 * in the text, which is masked when it holds only token-body and control characters and does not
 * run into a `NAME=`. A span across a line break is joined only when no part of it is a key by
 * itself (`ghp_<key>\nbutton` is a key and a word, not one key). A match with nothing stripped
 * inside it is left to the plain pass, which masks it the same way.
 *
 * Since a masked span holds only token-body and control characters, only the runs of those that
 * have a control character between two body characters (a line break inside a run counts) and
 * hold a format's literal once joined are scanned, each with the character on either side as its
 * context (the boundaries read it). Ordinary multi-line text costs one pass over its characters.
 */
function redactControlSplitTokens(text: string, masker: Masker): string {
  if (!CONTROL_CHAR_RE.test(text)) return text;
  let out = '';
  let last = 0;
  let runEnd = 0;
  INNER_CONTROL_RE.lastIndex = 0;
  for (let hit = INNER_CONTROL_RE.exec(text); hit !== null; hit = INNER_CONTROL_RE.exec(text)) {
    if (hit.index < runEnd) continue;
    // The run of token-body and control characters around this one: [start, runEnd).
    let start = hit.index;
    while (start > 0 && isRunChar(text.charCodeAt(start - 1))) start--;
    runEnd = hit.index + hit[0].length;
    while (runEnd < text.length && isRunChar(text.charCodeAt(runEnd))) runEnd++;
    INNER_CONTROL_RE.lastIndex = runEnd;
    for (const [from, to, mask] of splitTokensInRun(text, start, runEnd, masker)) {
      out += text.slice(last, from) + mask;
      last = to;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}

const isRunChar = (code: number): boolean => isTokenBody(code) || isControl(code);
// A control character (or several) between two token-body characters: where a run is joined.
const INNER_CONTROL_RE = /[A-Za-z0-9_.-][\x00-\x1f\x7f\u200b-\u200f\u2028-\u202f\u2060\ufeff]+(?=[A-Za-z0-9_.-])/g;

/** The masked spans ([from, to) of `text`, and their masks) of the run [start, end), in order. */
function splitTokensInRun(text: string, start: number, end: number, masker: Masker): Array<[number, number, string]> {
  const kept: number[] = [];
  let run = '';
  for (let i = start; i < end; i++) {
    if (isControl(text.charCodeAt(i))) continue;
    kept.push(i);
    run += text.charAt(i);
  }
  if (!LITERAL_GATE_RE.test(run)) return [];
  const before = start > 0 ? text.charAt(start - 1) : '';
  const scanned = before + run + text.charAt(end);
  const spans: Array<[number, number, string]> = [];
  SPLIT_SCAN_RE.lastIndex = before.length;
  for (let m = SPLIT_SCAN_RE.exec(scanned); m !== null && m.index < before.length + run.length; m = SPLIT_SCAN_RE.exec(scanned)) {
    const first = m.index - before.length;
    const lastChar = first + m[0].length - 1;
    if (lastChar >= run.length) continue; // runs into the next character: not token-body only
    const from = kept[first]!;
    const to = kept[lastChar]! + 1;
    if (to - from === m[0].length) continue;
    const span = text.slice(from, to);
    if (/[\n\r]/.test(span) && SELF_MATCH_RE.test(span)) continue;
    if (text.charAt(to) === '=') continue;
    // Gateway: when part of the span is a key by itself, 0.19 (which does not join) masks that part
    // and shows the rest, and newer Hermes shows the joined key's head and tail; no character is
    // shown then, so the answer reveals nothing either version hides.
    spans.push([from, to, SELF_MATCH_RE.test(span) ? masker.full(m[0]) : maskMatch(m[0], m.groups ?? {}, masker)]);
  }
  return spans;
}

// ---------------------------------------------------------------------------------------------
// Pass 1b: Zhipu `id.secret` keys (newer Hermes, agent/redact.py `_ZHIPU_API_KEY_RE`)
// ---------------------------------------------------------------------------------------------

// 32 lower-case hex, a dot, 16+ alphanumerics, as a whole run: content-hash file names
// (`<md5>.bundle`, `<sha>.sqlite3`) are too short after the dot or hold a dot or `_`. The lookbehind
// starts each attempt at the beginning of a run, so a long run is scanned once.
const ZHIPU_KEY_RE = /(?<![A-Za-z0-9_.-])[0-9a-f]{32}\.[A-Za-z0-9]{16,}(?![A-Za-z0-9_.-])/g;

/** Zhipu keys, masked as a key of a known format (head/tail in output, the sentinel in file reads). */
export function redactZhipuKeys(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes('.')) return text;
  return text.replace(ZHIPU_KEY_RE, (key) => masker.token(key));
}
