import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { rateLimit, TokenBuckets } from '../../../supervisor/http/edge/rate-limit.js';

// Token buckets: a burst of `perMinute`, then one token every 60/perMinute s, per key; keys bounded.

/** A clock the test moves on by hand. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

test('a burst of perMinute passes, the next waits with a Retry-After, refill restores one', () => {
  const clock = manualClock();
  const buckets = new TokenBuckets(30, clock.now);
  for (let i = 0; i < 30; i++) assert.equal(buckets.take('a').ok, true, `request ${i}`);
  const denied = buckets.take('a');
  assert.deepEqual(denied, { ok: false, retryAfterSeconds: 2 });
  assert.equal(buckets.take('b').ok, true, 'another key has its own bucket');
  clock.advance(2000);
  assert.equal(buckets.take('a').ok, true);
  assert.equal(buckets.take('a').ok, false);
});

test('Retry-After rounds the wait for one token up to whole seconds', () => {
  const clock = manualClock();
  const buckets = new TokenBuckets(7, clock.now);
  for (let i = 0; i < 7; i++) buckets.take('k');
  // One token every 60/7 s = 8.57 s.
  assert.deepEqual(buckets.take('k'), { ok: false, retryAfterSeconds: 9 });
  clock.advance(8000);
  assert.deepEqual(buckets.take('k'), { ok: false, retryAfterSeconds: 1 });
  clock.advance(600);
  assert.deepEqual(buckets.take('k'), { ok: true });
});

test('the number of keys is bounded: the least recently used key is forgotten', () => {
  const clock = manualClock();
  const buckets = new TokenBuckets(1, clock.now, 2);
  assert.equal(buckets.take('a').ok, true);
  assert.equal(buckets.take('b').ok, true);
  assert.equal(buckets.take('c').ok, true);
  assert.equal(buckets.take('a').ok, true, 'a was evicted, so it starts full again');
  assert.equal(buckets.take('c').ok, false, 'c is still tracked');
});

test('the middleware answers 429 with Retry-After and a JSON error once the key is empty, per key', async () => {
  const clock = manualClock();
  const app = new Hono();
  app.use('*', rateLimit(new TokenBuckets(2, clock.now), (c) => c.req.header('x-client') ?? 'none'));
  app.get('/', (c) => c.text('ok'));
  const get = (client: string) => app.request('/', { headers: { 'x-client': client } });
  assert.equal((await get('a')).status, 200);
  assert.equal(await (await get('a')).text(), 'ok');
  const refused = await get('a');
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '30');
  assert.deepEqual(await refused.json(), { error: 'rate_limited', message: 'too many requests; retry in 30 s' });
  assert.equal((await get('b')).status, 200, 'another client is not limited');
  clock.advance(30_000);
  assert.equal((await get('a')).status, 200);
});
