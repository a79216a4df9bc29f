import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { threadId } from 'node:worker_threads';
import { closeCpuPool, cpuTask, runOnCpuPool } from '../../../supervisor/platform/thread-pool/pool.js';

// The supervisor's one thread pool, driven through its entry with a task module of the tests'.

const task = cpuTask<(input: { waitMs: number }) => Promise<number>>(new URL('../../helpers/thread-task.js', import.meta.url));
after(() => closeCpuPool());

test('a task runs on a pool thread, never on the calling one, and at most two threads run at once', async () => {
  const ids = await Promise.all(Array.from({ length: 4 }, () => runOnCpuPool(task, { waitMs: 50 })));
  assert.ok(ids.every((id) => id !== threadId && id > 0), JSON.stringify(ids));
  assert.ok(new Set(ids).size <= 2, `threads ${JSON.stringify(ids)}`);
});

test('aborting a task rejects its promise', async () => {
  const controller = new AbortController();
  const running = runOnCpuPool(task, { waitMs: 5000 }, controller.signal);
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(running);
});

test('more tasks than the queue holds: the ones beyond it are refused at once', async () => {
  const results = await Promise.allSettled(Array.from({ length: 24 }, () => runOnCpuPool(task, { waitMs: 100 })));
  const refused = results.filter((r) => r.status === 'rejected');
  assert.ok(refused.length > 0, 'some were refused');
  assert.ok(refused.every((r) => /queue is at limit/i.test(String((r as PromiseRejectedResult).reason))), String((refused[0] as PromiseRejectedResult | undefined)?.reason));
  assert.ok(results.some((r) => r.status === 'fulfilled'));
});

test('a closed pool is made again on next use', async () => {
  await closeCpuPool();
  assert.ok((await runOnCpuPool(task, { waitMs: 0 })) > 0);
});
