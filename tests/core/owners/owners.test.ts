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

test('leases count per owner and in total until the work settles, rejected work too', async () => {
  const owners = new OwnerRegistry({ defaultCwd: '/' });
  const gates: Array<() => void> = [];
  const hold = () => new Promise<void>((resolve) => gates.push(resolve));
  const a1 = owners.runLeased('cap:a', hold);
  const a2 = owners.runLeased('cap:a', hold);
  const b = owners.runLeased('cap:b', () => Promise.reject(new Error('boom')));
  assert.equal(owners.leaseCount('cap:a'), 2);
  assert.equal(owners.inflightNativeCalls, 3);
  await assert.rejects(b, /boom/);
  assert.equal(owners.leaseCount('cap:b'), 0);
  assert.equal(owners.inflightNativeCalls, 2);
  gates.shift()!();
  await a1;
  assert.equal(owners.leaseCount('cap:a'), 1);
  gates.shift()!();
  await a2;
  assert.equal(owners.leaseCount('cap:a'), 0);
  assert.equal(owners.inflightNativeCalls, 0);
  assert.equal(await owners.runLeased('cap:c', async () => 42), 42);
});

test('release waits for the last lease, runs every hook in order, and reports a throwing hook without stopping the rest', async () => {
  const errors: string[] = [];
  const owners = new OwnerRegistry({ defaultCwd: '/', onHookError: (name, id, error) => errors.push(`${name}:${id}:${(error as Error).message}`) });
  const ran: string[] = [];
  owners.registerReleaseHook('one', (id) => void ran.push(`one:${id}`));
  owners.registerReleaseHook('bad', async () => {
    throw new Error('nope');
  });
  owners.registerReleaseHook('two', async (id) => void ran.push(`two:${id}`));
  let finish!: () => void;
  const first = owners.runLeased('cap:a', () => new Promise<void>((resolve) => (finish = resolve)));
  const second = owners.runLeased('cap:a', () => Promise.resolve());
  await second;
  const released = owners.release('cap:a');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(ran, [], 'one lease still held');
  finish();
  await first;
  await released;
  assert.deepEqual(ran, ['one:cap:a', 'two:cap:a']);
  assert.deepEqual(errors, ['bad:cap:a:nope']);
  await owners.release('cap:idle');
  assert.deepEqual(ran.slice(2), ['one:cap:idle', 'two:cap:idle'], 'an owner without leases is released at once');
});
