import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { descendantsOf, processStartTime, statFields, WORKER_TAG_VAR } from '../../../shared/proc.js';
import { becomeSubreaper } from '../../../shared/subreaper.js';
import { killEverythingStarted, reapAdopted, reapZombies, signalEverythingStarted } from '../../../workers/runtime/reap.js';
import { waitFor } from '../../helpers/wait.js';

// Whole-tree cleanup from inside a worker, in its fallback mode (no PID namespace): this test
// process stands in for the worker, with real processes, found as descendants or by the worker tag.
// Each test's processes are its only ones, so "everything started" is exactly them.

const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'], env });
  started.push(child);
  return child;
}

const alive = (pid: number): boolean => processStartTime(pid) !== undefined;

test('signalEverythingStarted: one signal to every live descendant, counted', async () => {
  const a = run('sleep', ['30']);
  const b = run('sleep', ['30']);
  await waitFor(() => alive(a.pid!) && alive(b.pid!), 5000, 'the sleepers');
  const exits = [once(a, 'exit'), once(b, 'exit')];
  assert.equal(signalEverythingStarted('SIGTERM'), 2);
  for (const exit of exits) assert.equal((await exit)[1], 'SIGTERM');
});

test('killEverythingStarted: the whole tree, a spared process left alone, spawned children left for libuv', async () => {
  const shell = run('sh', ['-c', 'sleep 30 & sleep 30 & wait']);
  const spare = run('sleep', ['30']);
  const kids = await waitFor(() => (descendantsOf(shell.pid!).length === 2 ? descendantsOf(shell.pid!) : undefined), 5000, 'the shell children');
  await waitFor(() => alive(spare.pid!), 5000, 'the spared sleeper');
  const exited = once(shell, 'exit');
  // At least the three; one still dying when the next round scans is counted again.
  assert.ok(killEverythingStarted(new Set([shell.pid!]), new Set([spare.pid!])) >= 3);
  // Spawned: reaped by libuv, so its exit event arrives.
  assert.equal((await exited)[1], 'SIGKILL');
  await waitFor(() => kids.every((k) => !alive(k)), 5000, 'the shell children gone');
  assert.equal(alive(spare.pid!), true);
  const spareExit = once(spare, 'exit');
  assert.ok(killEverythingStarted(new Set([spare.pid!])) >= 1);
  assert.equal((await spareExit)[1], 'SIGKILL');
  assert.equal(killEverythingStarted(), 0);
});

test('a process carrying the worker tag is found outside the tree', async () => {
  const tag = `reap-test-${randomUUID()}`;
  const leaver = run('sh', ['-c', 'sleep 30 >/dev/null & echo $!'], { ...process.env, [WORKER_TAG_VAR]: tag });
  let out = '';
  leaver.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await once(leaver, 'close');
  const escaped = Number(out.trim());
  assert.ok(escaped > 0 && alive(escaped));
  assert.equal(descendantsOf(process.pid).includes(escaped), false);
  const before = process.env[WORKER_TAG_VAR];
  process.env[WORKER_TAG_VAR] = tag;
  try {
    assert.equal(signalEverythingStarted('SIGKILL'), 1);
  } finally {
    if (before === undefined) delete process.env[WORKER_TAG_VAR];
    else process.env[WORKER_TAG_VAR] = before;
  }
  await waitFor(() => !alive(escaped), 5000, 'the tagged process gone');
});

test('reapAdopted waits out an adopted zombie; reapZombies does nothing outside a PID namespace', async () => {
  assert.equal(becomeSubreaper(), true);
  const leaver = run('sh', ['-c', 'sleep 30 >/dev/null & echo $!']);
  let out = '';
  leaver.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await once(leaver, 'close');
  const orphan = Number(out.trim());
  await waitFor(() => statFields(orphan)?.[1] === String(process.pid), 5000, 'the orphan adopted');
  process.kill(orphan, 'SIGKILL');
  await waitFor(() => statFields(orphan)?.[0] === 'Z', 5000, 'the orphan a zombie');
  reapZombies();
  assert.equal(statFields(orphan)?.[0], 'Z');
  reapAdopted([orphan]);
  assert.equal(statFields(orphan), undefined);
});
