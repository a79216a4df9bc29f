import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OwnerRegistry } from '../../../supervisor/core/owners/owners.js';

// An owner's working directory lives in the owner registry: the terminal records where each
// command ended, the file tools read it through cwdFor, and it is forgotten when the owner ends,
// only once the owner's running work has settled.

test("cwdFor: the default until the owner's terminal records one, then that one, per owner", () => {
  const owners = new OwnerRegistry({ defaultCwd: '/srv/project' });
  const { cwdFor } = owners; // handed to the file tools as a plain function
  assert.equal(cwdFor('cap:a'), '/srv/project');
  owners.setCwd('cap:a', '/srv/project/sub');
  assert.equal(cwdFor('cap:a'), '/srv/project/sub');
  assert.equal(cwdFor('cap:b'), '/srv/project');
  assert.equal(cwdFor(''), '/srv/project', 'an owner-less call');
});

test('release forgets the cwd after the owner drains, before its release hooks run', async () => {
  const owners = new OwnerRegistry({ defaultCwd: '/srv/project' });
  owners.setCwd('cap:a', '/tmp');
  let seenByHook: string | undefined;
  owners.registerReleaseHook('terminal', (id) => {
    seenByHook = owners.cwdFor(id);
  });
  let finish!: () => void;
  const running = owners.runLeased('cap:a', () => new Promise<void>((resolve) => (finish = resolve)));
  const released = owners.release('cap:a');
  await new Promise((r) => setImmediate(r));
  assert.equal(owners.cwdFor('cap:a'), '/tmp', 'still running: kept');
  finish();
  await running;
  await released;
  assert.equal(seenByHook, '/srv/project');
  assert.equal(owners.cwdFor('cap:a'), '/srv/project');
});
