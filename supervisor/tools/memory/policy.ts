import { createHash } from 'node:crypto';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { containsSecret } from '../../../shared/secret-detect.js';

// The gateway's write policy for Honcho conclusions: a conclusion is a
// durable fact of one of four kinds; secret-like or explicitly temporary content is refused before
// anything is sent. This is gateway policy, not a Honcho feature: Honcho conclusions carry no kind
// field, so the kind travels inside the content as a `[kind] ` prefix and is parsed back on reads.

export const CONCLUSION_KINDS = ['preference', 'decision', 'architecture', 'project_state'] as const;
type ConclusionKind = (typeof CONCLUSION_KINDS)[number];

const KIND_PREFIX = new RegExp(`^\\[(${CONCLUSION_KINDS.join('|')})\\] ([\\s\\S]*)$`);

// Explicit markers of short-lived content. Deliberately phrases, not single words like "currently":
// a project_state fact ("the gateway currently listens on 3060") is durable until it changes.
const TEMPORARY_PATTERNS: RegExp[] = [
  /\btemporar(?:y|ily)\b/i,
  /\bfor (?:now|the (?:time being|moment)|today|tonight)\b/i,
  /\b(?:today|tonight) only\b/i,
  /\bjust (?:for )?today\b/i,
  /\b(?:this|the current) (?:session|conversation|chat|turn) only\b/i,
  /\bfor (?:this|the current) (?:session|conversation|chat|turn)\b/i,
  /\buntil (?:tomorrow|tonight|later|the end of (?:the |this )?(?:day|session|conversation|chat|week))\b/i,
  /\b(?:just|only) (?:this|for this) (?:once|time)\b/i,
  /\bshort[- ]term\b/i,
  /\bephemeral\b/i,
  // Explicitly time-bounded: "for the next hour", "for the next 2 weeks", "this week only",
  // "only this sprint", "until Friday", "until next week", "until EOD", and reminders.
  /\bfor the next (?:(?:few|couple(?: of)?|\d+|two|three|four|five|six|seven|ten) )?(?:minutes?|hours?|days?|weeks?|weekends?|months?|sprints?)\b/i,
  /\b(?:tomorrow|this (?:morning|afternoon|evening|week|weekend|month|sprint)) only\b/i,
  /\bonly (?:for )?(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend|month|sprint))\b/i,
  /\buntil (?:(?:next|this) )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week(?:end)?|month|sprint)\b/i,
  /\buntil (?:the )?(?:eod|end of (?:the )?day|weekend)\b/i,
  /\bremind me\b/i,
];

// Credential words followed by a value: "my password is hunter2", "api_key: 0123…", "the secret
// key = 'x'". Only a value that looks like one is refused: at least 6 characters with a digit or a
// symbol other than a hyphen, or any quoted value of 4+ characters. Prose about credentials stays
// allowed ("we decided to rotate the api key yearly", "the api key is rotated yearly", "the password
// is stored in the vault"). Known gap, by choice: a bare dictionary-word value ("my password is
// swordfish") is indistinguishable from prose and passes.
const CREDENTIAL_WORD = String.raw`(?:pass(?:word|wd|phrase)|secret(?:[_ -]?(?:access[_ -]?)?key)?|client[_ -]?secret|api[_ -]?key|access[_ -]?key(?:[_ -]?id)?|(?:auth|access|bearer|refresh|api)?[_ -]?token|private[_ -]?key)`;
const CREDENTIAL_VALUE = new RegExp(String.raw`\b${CREDENTIAL_WORD}s?\b(?:\s+(?:is|was|are)\s+|\s*(?:=|:|->)\s*)(?:(["'])([^"'\n]{4,})\1|(\S+))`, 'gi');
// Long high-entropy runs: 32+ hex digits, or 32+ base64 characters mixing upper, lower and digits.
// A hex run labelled as a commit, hash or digest ("commit 3f2a…") is a reference, not a secret.
const HEX_RUN = /(?<![0-9A-Za-z])[0-9a-fA-F]{32,}(?![0-9A-Za-z])/g;
const HASH_LABEL = /\b(?:commit|sha(?:1|256|512)?|digest|hash|checksum|rev(?:ision)?)\s*[:=#]?\s*$/i;
const BASE64_RUN = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{32,}={0,2}/g;

/** Why `text` looks like it carries a credential value (a short label, never the value), if it does. */
export function secretValueReason(text: string): string | undefined {
  for (const m of text.matchAll(CREDENTIAL_VALUE)) {
    if (m[2] !== undefined) return 'a quoted credential value';
    const value = (m[3] ?? '').replace(/[.,;!?)\]}]+$/, '');
    if (value.length >= 6 && /[0-9!@#$%^&*_+=~/\\|<>]/.test(value)) return 'a credential value';
  }
  for (const m of text.matchAll(HEX_RUN)) {
    if (!HASH_LABEL.test(text.slice(Math.max(0, m.index! - 24), m.index))) return 'a long hex string';
  }
  for (const m of text.matchAll(BASE64_RUN)) {
    if (/[A-Z]/.test(m[0]) && /[a-z]/.test(m[0]) && /\d/.test(m[0])) return 'a long base64-like string';
  }
  return undefined;
}

export function temporaryPhrase(text: string): string | undefined {
  for (const re of TEMPORARY_PATTERNS) {
    const m = re.exec(text);
    if (m) return m[0];
  }
  return undefined;
}

export function encodeConclusion(kind: ConclusionKind, text: string): string {
  return `[${kind}] ${text}`;
}

/** A stored conclusion's kind and text; `kind: null` for conclusions the gateway did not write. */
export function decodeConclusion(content: string): { kind: ConclusionKind | null; content: string } {
  const m = KIND_PREFIX.exec(content);
  return m ? { kind: m[1] as ConclusionKind, content: m[2]! } : { kind: null, content };
}

export function contentDigest(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Checks a conclusion before anything is sent. Returns the trimmed text. Throws a GatewayError with
 * a stable code: MEMORY_KIND_REQUIRED, MEMORY_CONCLUSION_TOO_LARGE, MEMORY_CONCLUSION_SECRET,
 * MEMORY_CONCLUSION_TEMPORARY or INVALID_ARGUMENTS.
 */
export function checkConclusion(text: unknown, kind: unknown, maxChars: number): { text: string; kind: ConclusionKind } {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'memory_conclude create needs a non-empty `conclusion`');
  }
  if (kind === undefined) {
    throw new GatewayError(ErrorCode.MEMORY_KIND_REQUIRED, `memory_conclude create needs a durable \`kind\`: one of ${CONCLUSION_KINDS.join(', ')}`, {
      kinds: [...CONCLUSION_KINDS],
    });
  }
  if (!(CONCLUSION_KINDS as readonly unknown[]).includes(kind)) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `kind must be one of ${CONCLUSION_KINDS.join(', ')}`);
  }
  const trimmed = text.trim();
  if (trimmed.length > maxChars) {
    throw new GatewayError(ErrorCode.MEMORY_CONCLUSION_TOO_LARGE, `a conclusion is at most ${maxChars} characters (got ${trimmed.length}); store one durable fact per conclusion`, {
      max_chars: maxChars,
    });
  }
  if (containsSecret(trimmed) || secretValueReason(trimmed) !== undefined) {
    throw new GatewayError(ErrorCode.MEMORY_CONCLUSION_SECRET, 'the conclusion looks like it contains a secret (key, token, password, credential or phone number); secrets never go to durable memory');
  }
  const phrase = temporaryPhrase(trimmed);
  if (phrase !== undefined) {
    throw new GatewayError(ErrorCode.MEMORY_CONCLUSION_TEMPORARY, `the conclusion is explicitly temporary ("${phrase}"); durable memory only keeps lasting preferences, decisions, architecture and project state`);
  }
  return { text: trimmed, kind: kind as ConclusionKind };
}
