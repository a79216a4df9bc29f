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
  return text.replace(PREFIX_RE, (match: string, ...rest: unknown[]) =>
    maskMatch(match, rest[rest.length - 1] as Record<string, string | undefined>, masker),
  );
}
