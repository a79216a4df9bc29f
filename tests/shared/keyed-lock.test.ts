import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withKeyedLocks } from '../../shared/keyed-lock.js';

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

test('callers holding the same key run one after another, in call order', async () => {
  const events: string[] = [];
  const run = (name: string) =>
    withKeyedLocks(['k'], async () => {
      events.push(`${name} in`);
      await tick();
      events.push(`${name} out`);
      return name;
    });
  assert.deepEqual(await Promise.all([run('a'), run('b'), run('c')]), ['a', 'b', 'c']);
  assert.deepEqual(events, ['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
});

test('different keys never wait for each other', async () => {
  const events: string[] = [];
  const run = (key: string) =>
    withKeyedLocks([key], async () => {
      events.push(`${key} in`);
      await tick();
      events.push(`${key} out`);
    });
  await Promise.all([run('x'), run('y')]);
  assert.deepEqual(events, ['x in', 'y in', 'x out', 'y out']);
});

test('overlapping key sets taken in opposite orders do not deadlock, and a key repeated is taken once', async () => {
  const order: string[] = [];
  await Promise.all([
    withKeyedLocks(['b', 'a', 'a'], async () => {
      await tick();
      order.push('first');
    }),
    withKeyedLocks(['a', 'b'], async () => {
      order.push('second');
    }),
  ]);
  assert.deepEqual(order, ['first', 'second']);
});

test('a failing caller releases its keys and its error reaches the caller', async () => {
  await assert.rejects(
    withKeyedLocks(['f'], async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(await withKeyedLocks(['f'], async () => 'after'), 'after');
});
