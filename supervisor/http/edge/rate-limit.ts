import type { Context, MiddlewareHandler } from 'hono';

// Per-client token buckets: each key holds up to `perMinute` tokens refilled continuously at
// perMinute/60 per second, and every request takes one, so a burst of `perMinute` passes and the
// sustained rate is `perMinute` a minute. The number of keys is bounded (oldest-touched key
// evicted first) so forged client addresses cannot grow memory without limit.

interface Bucket {
  tokens: number;
  at: number;
}

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {
    this.perMs = perMinute / 60_000;
  }

  take(key: string): TakeResult {
    const now = this.now();
    const previous = this.buckets.get(key);
    const tokens = previous ? Math.min(this.perMinute, previous.tokens + (now - previous.at) * this.perMs) : this.perMinute;
    // Re-inserting keeps the Map in touch order, so the first key is the least recently used.
    this.buckets.delete(key);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.perMs / 1000)) };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    return { ok: true };
  }
}

/** Hono middleware: 429 with `Retry-After` (seconds) once a client's bucket is empty. */
export function rateLimit(buckets: TokenBuckets, keyOf: (c: Context) => string): MiddlewareHandler {
  return async (c, next) => {
    const taken = buckets.take(keyOf(c));
    if (taken.ok) return next();
    c.header('Retry-After', String(taken.retryAfterSeconds));
    return c.json({ error: 'rate_limited', message: `too many requests; retry in ${taken.retryAfterSeconds} s` }, 429);
  };
}
