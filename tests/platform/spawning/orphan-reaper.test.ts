import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { zombieChildrenOf } from '../../../shared/proc.js';
import { becomeSubreaper } from '../../../shared/subreaper.js';
import { OrphanReaper } from '../../../supervisor/platform/spawning/orphan-reaper.js';
import { adoptedOrphan, untilZombie } from '../../helpers/orphans.js';
import { within } from '../../helpers/wait.js';

// The supervisor's reaper of adopted orphans, in this test process made a child subreaper as the
// gateway bin makes itself: an orphan re-parented here dies a zombie that the sweep reaps, while the
// children libuv spawned keep their own exit statuses.

test('the sweep reaps an adopted zombie on its second look, and counts it', async () => {
  assert.ok(becomeSubreaper(), 'the subreaper addon is built (npm install)');
  const reaper = new OrphanReaper();
  const orphan = await adoptedOrphan();
  await untilZombie(orphan);
  assert.equal(reaper.sweep(), 0, 'the first look only notes it');
  assert.ok(zombieChildrenOf(process.pid).some((z) => z.pid === orphan), 'still a zombie after the first look');
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(reaper.sweep(), 1, 'the second look reaps it');
  assert.ok(!zombieChildrenOf(process.pid).some((z) => z.pid === orphan));
  assert.equal(reaper.reaped, 1);
  assert.equal(reaper.sweep(), 0, 'nothing is left to reap');
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
