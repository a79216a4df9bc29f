// Masking primitives shared by every pass of shared/redact.ts.

export const MASK = '***';

/**
 * Hermes `_mask_token`: tokens of 18+ characters keep their first 6 and last 4 characters so a
 * human can still tell which key leaked; anything shorter is fully masked, because 10 visible
 * characters of a short secret would be most of it.
 */
export function maskToken(token: string): string {
  // Code points, not UTF-16 units, so a mask never splits a surrogate pair.
  const chars = Array.from(token);
  if (chars.length < 18) return MASK;
  return `${chars.slice(0, 6).join('')}...${chars.slice(-4).join('')}`;
}

// Output of this module (`***`, or a maskToken head/tail form). Re-masking such a value would only
// erase the head/tail hint it deliberately kept, and would make redact() non-idempotent, so
// containsSecret(redact(x)) would report a secret in already-clean text.
export const ALREADY_MASKED_RE = /^(?:\*\*\*|\S{6}\.\.\.\S{4})$/u;

/**
 * maskToken for a value cut out of surrounding text. A value holding a backslash is fully masked:
 * in JSON-escaped text a 6-char head could end in half an escape (`abcde\...`), breaking the
 * syntax of the text around it.
 */
export function maskValue(value: string): string {
  return value.includes('\\') ? MASK : maskToken(value);
}

export function maskUnlessMasked(value: string): string {
  return ALREADY_MASKED_RE.test(value) ? value : maskValue(value);
}
