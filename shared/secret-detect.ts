import { redact } from './redact.js';
import { redactKnownFormats } from './redact/prefixes.js';

// Whether a text holds a secret, for the guards that refuse to pass one on (a memory conclusion, a
// URL the browser would open). The rules are redaction's (shared/redact.ts): a text holds a secret
// exactly when redacting it would change it, so a guard and the redaction of results never disagree.

/** True when redact() would change the text (any pass: key formats, assignments, headers, URLs…). */
export function containsSecret(text: string): boolean {
  return redact(text) !== text;
}

/** True when the text holds a credential of a known format (redaction's pass 1: `sk-…`, `ghp_…`, …). */
export function containsKnownTokenFormat(text: string): boolean {
  return redactKnownFormats(text) !== text;
}
