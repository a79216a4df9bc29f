import assert from 'node:assert/strict';
import { test } from 'node:test';
import { zombieChildrenOf } from '../../../shared/proc.js';
import { becomeSubreaper } from '../../../shared/subreaper.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { adoptedOrphan, untilZombie } from '../../helpers/orphans.js';

// A gateway in this test process, made a child subreaper as the gateway bin makes itself: /healthz
// counts the zombie of an orphan re-parented here, and the gateway's sweep reaps it.

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
