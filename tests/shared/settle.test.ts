import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settledWithin } from '../../shared/settle.js';

// A bounded wait leaves no timer behind once what it waited for has settled: a leftover one held a
// closing gateway (and every test file that closed one) open for the rest of its bound.

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test('work that settles first: true, and the bound\'s timer is gone', async () => {
  const before = timers();
  assert.equal(await settledWithin(Promise.resolve('done'), 60_000), true);
  assert.equal(await settledWithin(Promise.reject(new Error('failed')), 60_000), true, 'a rejection is settled too');
  assert.equal(timers(), before);
});

test('work that does not settle within the bound: false', async () => {
  assert.equal(await settledWithin(new Promise(() => {}), 20), false);
});
