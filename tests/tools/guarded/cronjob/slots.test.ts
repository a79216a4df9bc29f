import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Slots } from '../../../../supervisor/tools/guarded/cronjob/slots.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = () => new Promise((r) => setImmediate(r));

test('at most `size` calls run at once; the queue is served in order', async () => {
  const slots = new Slots(2);
  const signal = new AbortController().signal;
  const gates = [deferred(), deferred(), deferred(), deferred()];
  const started: number[] = [];
  const runs = gates.map((g, i) =>
    slots.run(signal, async () => {
      started.push(i);
      await g.promise;
      return i * 10;
    }),
  );
  await tick();
  assert.deepEqual(started, [0, 1]);
  gates[1]!.resolve();
  await tick();
  assert.deepEqual(started, [0, 1, 2]);
  gates[0]!.resolve();
  await tick();
  assert.deepEqual(started, [0, 1, 2, 3]);
  gates[2]!.resolve();
  gates[3]!.resolve();
  assert.deepEqual(await Promise.all(runs), [0, 10, 20, 30]);
});

test('a failing call frees its slot and its error reaches the caller', async () => {
  const slots = new Slots(1);
  const signal = new AbortController().signal;
  await assert.rejects(slots.run(signal, () => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(await slots.run(signal, () => Promise.resolve('next')), 'next');
});

test('a call already cancelled is refused without running', async () => {
  const slots = new Slots(1);
  const ac = new AbortController();
  ac.abort();
  let ran = false;
  await assert.rejects(
    slots.run(ac.signal, async () => {
      ran = true;
    }),
    { code: 'CANCELLED', message: 'cronjob: cancelled before Hermes was called; nothing was written' },
  );
  assert.equal(ran, false);
});

test('a queued call that is cancelled leaves the queue; the next one takes the slot', async () => {
  const slots = new Slots(1);
  const free = new AbortController().signal;
  const gate = deferred();
  const order: string[] = [];
  const first = slots.run(free, async () => {
    order.push('first');
    await gate.promise;
  });
  const ac = new AbortController();
  const cancelled = slots.run(ac.signal, async () => {
    order.push('cancelled');
  });
  const third = slots.run(free, async () => {
    order.push('third');
  });
  await tick();
  ac.abort();
  await assert.rejects(cancelled, { code: 'CANCELLED', message: 'cronjob: cancelled while queued for Hermes; nothing was written' });
  gate.resolve();
  await Promise.all([first, third]);
  assert.deepEqual(order, ['first', 'third']);
  // Both slots' worth of work is done: the slot is free again.
  assert.equal(await slots.run(free, () => Promise.resolve(1)), 1);
});
