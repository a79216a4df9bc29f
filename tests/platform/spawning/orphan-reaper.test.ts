import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { zombieChildrenOf } from '../../../shared/proc.js';
import { becomeSubreaper } from '../../../shared/subreaper.js';
import { OrphanReaper } from '../../../supervisor/platform/spawning/orphan-reaper.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { within } from '../../helpers/wait.js';

// The supervisor's reaper of adopted orphans, in this test process made a child subreaper as the
// gateway bin makes itself: an orphan re-parented here dies a zombie that /healthz counts and the
// sweep reaps, while the children libuv spawned keep their own exit statuses.

/** A child of `sh` (spawned here) that outlives it, so it is re-parented to this process. */
async function adoptedOrphan(): Promise<number> {
  const sh = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exit 3'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  sh.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await within(new Promise((resolve) => sh.once('exit', resolve)), 5000, 'sh to exit');
  assert.equal(code, 3, 'libuv reaped its own child with its real status');
  return Number(out.trim());
}

async function untilZombie(pid: number): Promise<void> {
  const end = Date.now() + 5000;
  while (!zombieChildrenOf(process.pid).some((z) => z.pid === pid)) {
    if (Date.now() > end) throw new Error(`pid ${pid} never became a zombie child of this process`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('/healthz counts an adopted zombie; the sweep reaps it on its second look', async () => {
  assert.ok(becomeSubreaper(), 'the subreaper addon is built (npm install)');
  // No periodic sweep: this test drives the passes itself.
  const gw = await startTestGateway({ limits: { orphanReapIntervalSeconds: 3600 } });
  try {
    const orphan = await adoptedOrphan();
    await untilZombie(orphan);
    const before = (await (await fetch(`${gw.url}/healthz`)).json()) as Record<string, unknown>;
    assert.equal(before.zombie_children, zombieChildrenOf(process.pid).length);
    assert.ok((before.zombie_children as number) >= 1, JSON.stringify(before));
    assert.equal(gw.gateway.orphans.sweep(), 0, 'the first look only notes it');
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(gw.gateway.orphans.sweep(), 1, 'the second look reaps it');
    assert.ok(!zombieChildrenOf(process.pid).some((z) => z.pid === orphan));
    const afterwards = (await (await fetch(`${gw.url}/healthz`)).json()) as Record<string, unknown>;
    assert.equal(afterwards.zombie_children, 0);
    assert.equal(afterwards.orphans_reaped, 1);
  } finally {
    await gw.close();
  }
});

test('a fast sweep never takes the exit status of a child libuv spawned', async () => {
  assert.ok(becomeSubreaper());
  const reaper = new OrphanReaper();
  reaper.start(1);
  try {
    // Many short children exiting at once: each must still report its own exit code to Node.
    const codes = await within(
      Promise.all(
        Array.from({ length: 40 }, (_, i) => new Promise<number | null>((resolve) => spawn('sh', ['-c', `exit ${i % 7}`], { stdio: 'ignore' }).once('exit', resolve))),
      ),
      15_000,
      'every spawned child to report its exit',
    );
    assert.deepEqual(codes, Array.from({ length: 40 }, (_, i) => i % 7));
  } finally {
    reaper.stop();
  }
});
