import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TokenBuckets } from '../../../supervisor/http/edge/rate-limit.js';
import { testClock } from '../../helpers/clock.js';

// Token buckets: a burst of `perMinute`, then one token every 60/perMinute s, per key; keys bounded.

test('a burst of perMinute passes, the next waits with a Retry-After, refill restores one', () => {
  const clock = testClock();
  const buckets = new TokenBuckets(30, () => clock.now());
  for (let i = 0; i < 30; i++) assert.equal(buckets.take('a').ok, true, `request ${i}`);
  const denied = buckets.take('a');
  assert.deepEqual(denied, { ok: false, retryAfterSeconds: 2 });
  assert.equal(buckets.take('b').ok, true, 'another key has its own bucket');
  clock.advance(2000);
  assert.equal(buckets.take('a').ok, true);
  assert.equal(buckets.take('a').ok, false);
});

test('the number of keys is bounded: the least recently used key is forgotten', () => {
  const clock = testClock();
  const buckets = new TokenBuckets(1, () => clock.now(), 2);
  assert.equal(buckets.take('a').ok, true);
  assert.equal(buckets.take('b').ok, true);
  assert.equal(buckets.take('c').ok, true);
  assert.equal(buckets.take('a').ok, true, 'a was evicted, so it starts full again');
  assert.equal(buckets.take('c').ok, false, 'c is still tracked');
});
