import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { sampleWorkerUsage } from '../../../supervisor/platform/spawning/usage.js';
import { waitFor } from '../../helpers/wait.js';

test('worker usage sums CPU and RSS over a worker and its whole tree', async () => {
  // A stand-in worker: a busy shell with a sleeping child.
  const worker = spawn('bash', ['-c', 'bash -c "sleep 30" & while :; do :; done'], { stdio: 'ignore', detached: true });
  try {
    // CPU is a rate: pidusage measures it between two samples of the same pids (the gateway samples
    // every 10 s), so sample until one follows an earlier sample of the worker and its child.
    await waitFor(async () => (await sampleWorkerUsage([worker.pid!])).processes >= 2, 5000, 'the stand-in worker to start its child');
    let last: Awaited<ReturnType<typeof sampleWorkerUsage>> | undefined;
    const u = await waitFor(async () => {
      last = await sampleWorkerUsage([worker.pid!]);
      return last.cpu_percent > 10 ? last : undefined;
    }, 5000, 'the busy loop to show up in cpu_percent').catch((e: Error) => assert.fail(`${e.message} (last ${JSON.stringify(last)})`));
    assert.equal(u.workers, 1);
    assert.ok(u.processes >= 2, `the worker and its child are both sampled (${u.processes})`);
    assert.ok(u.rss_bytes > 1024 * 1024, 'RSS is reported in bytes');
    assert.deepEqual(await sampleWorkerUsage([]), { workers: 0, processes: 0, cpu_percent: 0, rss_bytes: 0 });
  } finally {
    process.kill(-worker.pid!, 'SIGKILL'); // its own process group: the shell, the loop and the sleep
  }
});
