import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { monotonicMs } from '../../shared/clock.js';

// The clock deadlines are measured on: whole milliseconds of the monotonic clock.

test('monotonicMs: whole milliseconds of performance.now(), never going back, advancing with time', async () => {
  const before = performance.now();
  const t = monotonicMs();
  assert.ok(Number.isInteger(t));
  assert.ok(t >= Math.floor(before) && t <= performance.now());
  // Accepted where only whole numbers are (AbortSignal.timeout throws on a fraction).
  assert.doesNotThrow(() => AbortSignal.timeout(Math.max(0, t + 1000 - monotonicMs())));
  let last = t;
  for (let i = 0; i < 1000; i++) {
    const now = monotonicMs();
    assert.ok(now >= last);
    last = now;
  }
  await sleep(25);
  assert.ok(monotonicMs() - t >= 24);
});
