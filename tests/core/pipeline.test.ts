import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { normalizeResult } from '../../supervisor/core/result.js';
import { closeCpuPool, cpuPoolCompleted } from '../../supervisor/platform/thread-pool/pool.js';
import { normalizeOffloaded } from '../../supervisor/core/pipeline.js';

after(() => closeCpuPool());

const options = { maxChars: 65536 };
const secret = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';

test('a large result is normalised on the piscina thread, identically to inline', async () => {
  const outcome = { structured: { content: ('line of output\n'.repeat(20_000)) + `token ${secret}\n`, total_lines: 20_001 } };
  const before = cpuPoolCompleted();
  const result = await normalizeOffloaded(outcome, options, 65536);
  assert.equal(cpuPoolCompleted(), before + 1, 'it went through the thread');
  assert.deepEqual(result, normalizeResult(outcome, options));
  assert.ok(!JSON.stringify(result).includes(secret));
});

test('small results stay inline (a thread hop would cost more than they do)', async () => {
  const before = cpuPoolCompleted();
  const result = await normalizeOffloaded({ structured: { ok: true, note: `key ${secret}` } }, options, 65536);
  assert.equal(cpuPoolCompleted(), before);
  assert.ok(!JSON.stringify(result).includes(secret));
});

test('the event loop keeps turning while a big result is redacted', async () => {
  const big = { content: [{ type: 'text', text: `password=${secret} `.repeat(30_000) }] };
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const result = await normalizeOffloaded(big, { maxChars: 10_000_000 }, 65536);
  clearInterval(timer);
  assert.ok(!JSON.stringify(result).includes(secret));
  assert.ok(ticks > 0, 'timers ran during the normalisation');
});

test('many small strings add up: a result of 100,000 short lines goes to the thread', async () => {
  const before = cpuPoolCompleted();
  const lines = Array.from({ length: 100_000 }, (_, i) => `line ${i}`);
  const result = await normalizeOffloaded({ structured: { lines } }, { maxChars: 10_000_000 }, 65536);
  assert.equal(cpuPoolCompleted(), before + 1, 'it went through the thread');
  assert.equal((result.structuredContent as { lines: string[] }).lines.length, 100_000);
});
