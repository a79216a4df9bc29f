import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lane } from '../../../workers/hermes-tools/lane.js';

// The Hermes tools worker's lane: one request at a time on the tool server, in arrival order; a
// waiter whose signal aborts leaves without running and without holding up the ones after it.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('holders run one at a time, in order, and busy names the one running', async () => {
  const lane = new Lane();
  const log: string[] = [];
  let running = 0;
  const job = (name: string, ms: number) =>
    lane.run(name, async () => {
      running++;
      assert.equal(running, 1, 'never two at once');
      assert.equal(lane.busy?.what, name);
      log.push(`start ${name}`);
      await sleep(ms);
      log.push(`end ${name}`);
      running--;
      return name;
    });
  const results = await Promise.all([job('a', 30), job('b', 5), job('c', 1)]);
  assert.deepEqual(results, ['a', 'b', 'c']);
  assert.deepEqual(log, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  assert.equal(lane.busy, undefined);
});

test('an aborted waiter never runs, rejects with its reason, and the next one still gets its turn', async () => {
  const lane = new Lane();
  const ran: string[] = [];
  const first = lane.run('first', async () => {
    await sleep(40);
    ran.push('first');
  });
  const cancel = new AbortController();
  const skipped = lane.run('skipped', async () => void ran.push('skipped'), cancel.signal);
  const third = lane.run('third', async () => void ran.push('third'));
  cancel.abort(new Error('client went away'));
  await assert.rejects(skipped, /client went away/);
  assert.deepEqual(ran, [], 'the first still holds the lane');
  await Promise.all([first, third]);
  assert.deepEqual(ran, ['first', 'third']);
});

test('a holder that throws releases the lane', async () => {
  const lane = new Lane();
  await assert.rejects(lane.run('bad', async () => { throw new Error('boom'); }), /boom/);
  assert.equal(await lane.run('next', async () => 'ok'), 'ok');
});
