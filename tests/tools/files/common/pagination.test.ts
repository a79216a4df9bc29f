import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coerceIntegerArgs, hermesInteger } from '../../../../supervisor/tools/files/common/pagination.js';

// The file tools' integer arguments, read as Hermes' dispatch step and then its pagination's int()
// and clamps read them.

test('hermesInteger: int() of a number truncates toward zero; strings go through the dispatch step; the rest is undefined', () => {
  const cases: [unknown, number | undefined][] = [
    [2.7, 2], [-2.7, -2], [-0.5, 0], [7, 7], [Number.NaN, undefined], [Number.POSITIVE_INFINITY, undefined],
    ['3', 3], [' 3 ', 3], ['3.0', 3], ['1e2', 100], ['1_0.0', 10], ['-0', 0],
    ['2.5', undefined], ['abc', undefined], ['', undefined], ['inf', undefined], [true, undefined], [null, undefined], [[], undefined],
  ];
  for (const [value, expected] of cases) assert.equal(hermesInteger(value), expected, JSON.stringify(value));
  assert.ok(Object.is(hermesInteger(-0.5), 0), 'never -0');
});

test('coerceIntegerArgs drops null, clamps what Hermes reads as an integer, leaves the rest to the schema; stringsOnly converts strings only', () => {
  const rules = { offset: { min: 1 }, limit: { min: 1, max: 2000 }, other: {}, context: { stringsOnly: true } } as const;
  const args: Record<string, unknown> = { offset: null, limit: '5000', other: 'abc', context: 2.7, untouched: '3' };
  assert.equal(coerceIntegerArgs(args, rules), args, 'in place');
  assert.deepEqual(args, { limit: 2000, other: 'abc', context: 2.7, untouched: '3' });
  assert.deepEqual(coerceIntegerArgs({ offset: 0, limit: -3.9, other: 9.9 }, rules), { offset: 1, limit: 1, other: 9 });
  assert.deepEqual(coerceIntegerArgs({ context: ' 4 ' }, rules), { context: 4 });
  assert.deepEqual(coerceIntegerArgs({ context: null }, rules), { context: null }, 'stringsOnly leaves null to the schema');
  assert.deepEqual(coerceIntegerArgs({ context: '2.5' }, rules), { context: '2.5' });
});
