import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

// Static bearer tokens for an HTTP edge. The expected token is kept only as its SHA-256 digest and
// a presented token is hashed the same way, so the comparison is constant-time over equal-length
// buffers whatever the presented length, and the plain token never needs to stay in memory.

export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 6750), or undefined. */
export function bearerToken(header: string | undefined | null): string | undefined {
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(header ?? '');
  return match?.[1];
}

export function bearerMatches(header: string | undefined | null, expected: Buffer): boolean {
  const token = bearerToken(header);
  if (token === undefined) return false;
  return timingSafeEqual(tokenDigest(token), expected);
}

export interface BearerOptions {
  /** The expected digest, read per request (a rotated token applies without a restart); undefined: no usable token is configured. */
  expected: () => Buffer | undefined;
  realm: string;
  /** The body of a 401 (JSON); the `WWW-Authenticate` header is always set. */
  unauthorized?: (reason: 'missing' | 'invalid') => unknown;
}

/**
 * Hono middleware: 401 with `WWW-Authenticate: Bearer realm=...` unless the request carries the
 * token (RFC 6750 §3: `error="invalid_token"` only when a token was presented). Without a
 * configured token it fails closed with 503: an edge never serves unauthenticated by accident.
 */
export function bearerAuth(options: BearerOptions): MiddlewareHandler {
  return async (c, next) => {
    const expected = options.expected();
    if (!expected) {
      return c.json({ error: 'not_configured', message: 'no valid bearer token is configured for this endpoint' }, 503);
    }
    const header = c.req.header('authorization');
    if (bearerMatches(header, expected)) return next();
    const reason = bearerToken(header) === undefined ? 'missing' : 'invalid';
    const challenge = `Bearer realm="${options.realm}"${reason === 'invalid' ? ', error="invalid_token"' : ''}`;
    c.header('WWW-Authenticate', challenge);
    return c.json((options.unauthorized?.(reason) ?? { error: 'unauthorized', message: 'a valid bearer token is required' }) as Record<string, unknown>, 401);
  };
}
