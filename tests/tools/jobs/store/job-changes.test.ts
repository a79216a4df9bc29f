import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobChanges } from '../../../../supervisor/tools/jobs/store/job-changes.js';

test('a waiter wakes on its own job\'s change, not on another job\'s', async () => {
  const changes = new JobChanges();
  const started = performance.now();
  const waiting = changes.nextOrDelay('job_a', 10_000, new AbortController().signal);
  changes.notify('job_b');
  let woken = false;
  void waiting.then(() => (woken = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(woken, false, 'another job changed');
  changes.notify('job_a');
  await waiting;
  assert.ok(performance.now() - started < 5000);
});

test('a waiter wakes after its delay, or at once when its request is aborted', async () => {
  const changes = new JobChanges();
  const started = performance.now();
  await changes.nextOrDelay('job_a', 30, new AbortController().signal);
  assert.ok(performance.now() - started >= 25);
  const abort = new AbortController();
  const waiting = changes.nextOrDelay('job_a', 10_000, abort.signal);
  abort.abort();
  await waiting;
  assert.ok(performance.now() - started < 5000);
});
