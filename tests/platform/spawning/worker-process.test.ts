import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { terminalProtocol, type TerminalProtocol } from '../../../shared/worker-protocol/terminal.js';
import { detectIsolation } from '../../../supervisor/platform/spawning/isolation.js';
import { WorkerProcess } from '../../../supervisor/platform/spawning/worker-process.js';
import { within } from '../../helpers/wait.js';

// WorkerProcess.request(): the id is assigned by the channel, and a response reaches the request
// with its id whatever order responses come in; a worker that exits with requests outstanding
// fails every one of them (and any made after). The worker is tests/fixtures/out-of-order-worker.ts.

const entry = join(packageRoot(), 'dist', 'tests', 'fixtures', 'out-of-order-worker.js');
const workers: WorkerProcess<TerminalProtocol>[] = [];
after(async () => {
  await Promise.all(workers.map((w) => w.kill()));
});

async function start(hold: number): Promise<{ worker: WorkerProcess<TerminalProtocol>; failures: string[] }> {
  const failures: string[] = [];
  const worker = new WorkerProcess({
    protocol: terminalProtocol,
    entry,
    isolation: detectIsolation(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), HOLD: String(hold) },
    cwd: '/',
    onFailure: (reason) => failures.push(reason),
  });
  workers.push(worker);
  await within(worker.waitFor((m) => m.type === 'ready'), 10_000, 'ready');
  return { worker, failures };
}

const exec = (worker: WorkerProcess<TerminalProtocol>, command: string) =>
  worker.request({ type: 'exec', command, cwd: '/', timeoutMs: 1000, stateDir: tmpdir(), maxOutputBytes: 4096 });

test('responses arriving in reverse order each settle the request with their id', async () => {
  const { worker, failures } = await start(3);
  const arrived: string[] = [];
  worker.onFrame((m) => {
    if (m.type === 'result' && 'output' in m) arrived.push(m.output);
  });
  const replies = await within(Promise.all(['first', 'second', 'third'].map((c) => exec(worker, c))), 10_000, 'the three results');
  assert.deepEqual(arrived, ['third', 'second', 'first'], 'the worker answered last request first');
  assert.deepEqual(
    replies.map((r) => ('output' in r ? r.output : r.error)),
    ['first', 'second', 'third'],
    'each request got its own response',
  );
  assert.equal(new Set(replies.map((r) => r.id)).size, 3, 'three distinct ids');
  await worker.kill();
  assert.deepEqual(failures, []);
});

test('a worker exiting with requests outstanding rejects every one, and any request after', async () => {
  const { worker, failures } = await start(10);
  const held = [exec(worker, 'one'), exec(worker, 'two')];
  for (const p of held) p.catch(() => {});
  const last = exec(worker, 'exit');
  last.catch(() => {});
  for (const p of [...held, last]) await assert.rejects(within(p, 10_000, 'the rejection'), /^Error: worker exited \(code 3\)/);
  assert.equal(worker.alive, false);
  await assert.rejects(exec(worker, 'late'), /worker exited \(code 3\)/);
  assert.match(failures.join('\n'), /exited unexpectedly \(code 3\)/);
});
