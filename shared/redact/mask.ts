// Masking primitives shared by every pass of shared/redact.ts.

import { SECRET_FORMATS } from './formats.js';

export const MASK = '***';

/**
 * Hermes `_mask_token`: tokens of 18+ characters keep their first 6 and last 4 characters so a
 * human can still tell which key leaked; anything shorter is fully masked, because 10 visible
 * characters of a short secret would be most of it.
 */
export function maskToken(token: string): string {
  // Code points, not UTF-16 units, so a mask never splits a surrogate pair; control and zero-width
  // characters are dropped first, as newer Hermes' `mask_secret` does, so a mask never carries
  // invisible or line-breaking bytes (and counts only what can be seen).
  const chars = Array.from(DISPLAY_CONTROL_TEST_RE.test(token) ? token.replace(DISPLAY_CONTROL_RE, '') : token);
  if (chars.length < 18) return MASK;
  return `${chars.slice(0, 6).join('')}...${chars.slice(-4).join('')}`;
}

// Hermes `_DISPLAY_CONTROL_RE` (agent/redact.py, newer Hermes): C0 and C1 controls, DEL, zero-width
// and bidirectional formatting characters.
const DISPLAY_CONTROL_RE = /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064]/g;
const DISPLAY_CONTROL_TEST_RE = /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064]/;

/**
 * Hermes' non-reusable sentinels (`agent/redact.py` `_mask_token_nonreusable`), the file-read
 * mode's mask: no character of the secret, only the vendor prefix when it starts with one. A
 * head/tail mask looks like a real key cut short, and an agent that reads a file and writes it
 * back stores that dead string in place of the credential (Hermes issue #35519); a sentinel
 * cannot be taken for a key.
 */
export const SECRET_SENTINEL = '«redacted-secret»';

// Hermes' labels (`_PREFIX_SUBSTRINGS`): each format's leading literal, up to the first regex
// metacharacter (`SG\.` → `SG`), in table order; formats that start with a class have none.
const leadingLiteral = (pattern: string): string => /^[^[(\\.?*+|{^$]*/.exec(pattern)![0];
const labels = (formats: typeof SECRET_FORMATS): readonly string[] => formats.map((f) => leadingLiteral(f.pattern)).filter((l) => l !== '');
const ALL_LABELS = labels(SECRET_FORMATS);
// A value cut out of an assignment or a header is labelled by Hermes' own prefixes only: the
// gateway's two-letter ones (`AC`, `SK`, `EZ`) would label ordinary passwords.
const HERMES_LABELS = labels(SECRET_FORMATS.filter((f) => f.origin === 'hermes'));

function sentinel(secret: string, known: readonly string[]): string {
  const label = known.find((l) => secret.startsWith(l));
  return label === undefined ? SECRET_SENTINEL : `«redacted:${label}…»`;
}

/** `«redacted:<prefix>…»` for a token that starts with a known format's prefix, else `«redacted-secret»`. */
export function nonReusableMask(token: string): string {
  return sentinel(token, ALL_LABELS);
}

/**
 * A file-read sentinel anywhere in a text (`«redacted:ghp_…»`, `«redacted-secret»`): text holding
 * one was copied from a masked read, and writing it back would store the marker in place of the
 * secret. (`***` and head/tail masks are left out: ordinary text has those shapes.)
 */
export const REDACTION_MARKER_RE = /«redacted:[^\s«»]{1,32}…»|«redacted-secret»/u;

// Output of this module (`***`, a maskToken head/tail form, or a sentinel). Re-masking such a
// value would only erase the hint it deliberately kept, and would make redact() non-idempotent, so
// containsSecret(redact(x)) would report a secret in already-clean text.
export const ALREADY_MASKED_RE = /^(?:\*\*\*|\S{6}\.\.\.\S{4}|«redacted:[^\s«»]{1,32}…»|«redacted-secret»)$/u;

/**
 * maskToken for a value cut out of surrounding text. A value holding a backslash is fully masked:
 * in JSON-escaped text a 6-char head could end in half an escape (`abcde\...`), breaking the
 * syntax of the text around it.
 */
export function maskValue(value: string): string {
  return value.includes('\\') ? MASK : maskToken(value);
}

export function maskUnlessMasked(value: string, masker: Masker = OUTPUT_MASKER): string {
  return masker.keeps(value) ? value : masker.value(value);
}

/** How the passes mask what they find: as output (head/tail) or as file content (sentinels). */
export interface Masker {
  /** A whole token (a key of a known format, a JWT). */
  token(token: string): string;
  /** A value cut out of surrounding text (an assignment's, a header's, a URL's userinfo). */
  value(value: string): string;
  /**
   * A value masked whole, no character kept (newer Hermes' Python-repr fields: an escaped repr atom
   * cut in two could leave an unescaped quote behind): `***` in output, the sentinel in file reads.
   */
  full(value: string): string;
  /**
   * Whether a value that a later pass finds is left as it is rather than masked again: a mask
   * (ALREADY_MASKED_RE) that was in the text before this redaction. Hermes' passes each mask what
   * their pattern finds, an earlier pass's head/tail mask included (`OPENAI_API_KEY=sk-abc...3456`
   * from pass 1 becomes `OPENAI_API_KEY=***` in pass 2); the output masker of one redact() call
   * does the same with the masks it made itself, while a mask already in its input stays, so
   * redacting redacted text changes nothing.
   */
  keeps(value: string): boolean;
}

const isMask = (value: string): boolean => ALREADY_MASKED_RE.test(value);

const fullMask = (): string => MASK;
const fileValueMask = (value: string): string => sentinel(value, HERMES_LABELS);

export const OUTPUT_MASKER: Masker = { token: maskToken, value: maskValue, full: fullMask, keeps: isMask };
export const FILE_READ_MASKER: Masker = { token: nonReusableMask, value: fileValueMask, full: fileValueMask, keeps: isMask };

/**
 * The output masker of one redact() call: it remembers the masks it made, and a later pass masks
 * those again as Hermes' does (a head/tail mask is 13 characters, so masking it again gives `***`).
 * The file-read masker keeps its sentinels: they carry no character of the secret.
 */
export function outputMaskerForOneCall(): Masker {
  const made = new Set<string>();
  const remember = (mask: string): string => {
    made.add(mask);
    return mask;
  };
  return {
    token: (token) => remember(maskToken(token)),
    value: (value) => remember(maskValue(value)),
    full: fullMask,
    keeps: (value) => isMask(value) && !made.has(value),
  };
}

/**
 * An output masker for a pass that runs after redact() has already masked `original`: the masks
 * redact() made count as this redaction's own (a later pass masks them again, as Hermes' later
 * passes do), and only a mask that was in `original` itself is kept.
 */
export function outputMaskerKeepingMasksOf(original: string): Masker {
  return { token: maskToken, value: maskValue, full: fullMask, keeps: (value) => isMask(value) && original.includes(value) };
}
