import { randomBytes } from 'node:crypto';
import { redact } from './redact.js';

// Credentials the gateway hands to its client inside a tool result (session_open's session_token,
// job_prepare's recovery_token). A result goes through output redaction like every other, and
// random base64url can spell a secret's shape: `eyJ` followed by ten more characters reads as a
// JWT, and about one session token in 25,000 (one recovery token in 7,700) would reach the client
// masked, a token it could never present. Such a draw is drawn again, so the client always
// receives the credential that was stored.

/** `prefix` and `bytes` random bytes in base64url, drawn again until output redaction leaves it as it is. */
export function clientToken(prefix: string, bytes: number, random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const token = prefix + random(bytes).toString('base64url');
    if (redact(token) === token) return token;
  }
}
