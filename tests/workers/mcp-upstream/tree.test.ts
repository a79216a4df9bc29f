import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { descendantsOf, processStartTime, statFields } from '../../../shared/proc.js';
import { becomeSubreaper } from '../../../shared/subreaper.js';
import { killTree, trackUpstream, treeOf, upstreamGone } from '../../../workers/mcp-upstream/tree.js';
import { waitFor } from '../../helpers/wait.js';

// One upstream's process tree: read while it runs, killed as a whole, a reused pid never
// signalled; an upstream's orphans killed and reaped once it is gone. This test process stands in
// for the worker: a child subreaper whose own children are the upstreams, with real processes.

const started: ChildProcess[] = [];
before(() => {
  assert.equal(becomeSubreaper(), true);
});
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function upstream(script: string): ChildProcess {
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(child);
  return child;
}

/** A lone process (no shell between, so killing it leaves nothing behind). */
function sleeper(): ChildProcess {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  started.push(child);
  return child;
}

const alive = (pid: number): boolean => processStartTime(pid) !== undefined;

test('treeOf: the upstream and its live descendants, each with its start time; killTree takes them all', async () => {
  const up = upstream('sleep 30 & sleep 30 & wait');
  const pid = up.pid!;
  const kids = await waitFor(() => (descendantsOf(pid).length === 2 ? descendantsOf(pid) : undefined), 5000, 'two sleeps');
  const tree = treeOf(pid);
  assert.deepEqual(tree.map((p) => p.pid), [pid, ...kids]);
  for (const p of tree) assert.equal(p.startTime, processStartTime(p.pid));
  const exited = once(up, 'exit');
  killTree(tree, pid);
  // The upstream is left for libuv to reap: its exit event still arrives.
  const [, signal] = await exited;
  assert.equal(signal, 'SIGKILL');
  await waitFor(() => tree.every((p) => !alive(p.pid)), 5000, 'every member gone');
  assert.deepEqual(treeOf(pid), []);
});

test('killTree: a pid whose start time differs (a reused pid) is left alone', async () => {
  const other = sleeper();
  const pid = other.pid!;
  await waitFor(() => alive(pid), 5000, 'the sleeper');
  killTree([{ pid, startTime: `${processStartTime(pid)}1` }], undefined);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(alive(pid), true);
  assert.equal(other.exitCode, null);
  const exited = once(other, 'exit');
  killTree(treeOf(pid), pid);
  const [, signal] = await exited;
  assert.equal(signal, 'SIGKILL');
});

test('upstreamGone: an orphan the gone upstream left is killed and reaped; a tracked upstream is kept', async () => {
  const kept = sleeper();
  trackUpstream(kept.pid!);
  const leaver = upstream('sleep 30 >/dev/null & echo $!');
  trackUpstream(leaver.pid!);
  let out = '';
  leaver.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await once(leaver, 'close');
  const orphan = Number(out.trim());
  // Re-parented to this process (the subreaper), like an upstream's orphan to the worker.
  await waitFor(() => statFields(orphan)?.[1] === String(process.pid), 5000, 'the orphan re-parented here');
  upstreamGone(leaver.pid!);
  await waitFor(() => statFields(orphan) === undefined, 5000, 'the orphan killed and reaped (no zombie left)');
  assert.equal(alive(kept.pid!), true);
  assert.equal(kept.exitCode, null);
  const exited = once(kept, 'exit');
  kept.kill('SIGKILL');
  await exited;
});
