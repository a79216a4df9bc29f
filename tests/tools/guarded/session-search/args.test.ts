import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clampInt, hiddenSources, linkOf, parseTimeBound, prepareArgs, type SessionSearchChange, type TaskInput } from '../../../../supervisor/tools/guarded/session-search/args.js';
import { StoreError } from '../../../../supervisor/tools/guarded/session-search/store.js';

const NOW = 1_782_864_000.9; // 2026-07-01T00:00:00.9Z

function input(args: TaskInput['args'], changes: SessionSearchChange[] = [], profile = 'default'): TaskInput {
  return { dbPath: '/nowhere/state.db', args, budgetChars: 10_000, profile, changes };
}

function invalid(message: string) {
  return (e: unknown) => e instanceof StoreError && e.code === 'INVALID_ARGUMENTS' && e.message === message;
}

describe('parseTimeBound', () => {
  test('relative durations count back from now, whole seconds, any case', () => {
    assert.equal(parseTimeBound('7d', NOW), 1_782_864_000 - 7 * 86_400);
    assert.equal(parseTimeBound('24H', NOW), 1_782_864_000 - 86_400);
    assert.equal(parseTimeBound(' 2 w ', NOW), 1_782_864_000 - 2 * 604_800);
  });

  test('ISO dates are midnight UTC; naive datetimes are UTC; offsets are applied', () => {
    assert.equal(parseTimeBound('2026-07-01', NOW), 1_782_864_000);
    assert.equal(parseTimeBound('20260701', NOW), 1_782_864_000);
    assert.equal(parseTimeBound('2026-07-01T12:30:15', NOW), 1_782_864_000 + 12 * 3600 + 30 * 60 + 15);
    assert.equal(parseTimeBound('2026-07-01 12:30:15Z', NOW), 1_782_909_015);
    assert.equal(parseTimeBound('2026-07-01T12:30:15+02:00', NOW), 1_782_901_815);
    assert.equal(parseTimeBound('2026-07-01T12:30:15-0530', NOW), 1_782_928_815);
    assert.equal(parseTimeBound('2026-07-01T00:00:00.999', NOW), 1_782_864_000);
  });

  test('absent or blank is no bound', () => {
    assert.equal(parseTimeBound(undefined, NOW), undefined);
    assert.equal(parseTimeBound('   ', NOW), undefined);
  });

  test("anything else is refused with Hermes' text, the value in Python's repr", () => {
    const tail = ' (expected ISO date/datetime like 2026-07-01, or a relative duration like 7d, 24h, 2w)';
    assert.throws(() => parseTimeBound('yesterday', NOW), invalid(`invalid time bound: 'yesterday'${tail}`));
    assert.throws(() => parseTimeBound("it's", NOW), invalid(`invalid time bound: "it's"${tail}`));
    assert.throws(() => parseTimeBound('2026-02-30', NOW), invalid(`invalid time bound: '2026-02-30'${tail}`));
    assert.throws(() => parseTimeBound('2026-07-01T24:00', NOW), StoreError);
    assert.throws(() => parseTimeBound('2026-07-01T10:00+24:00', NOW), StoreError);
    assert.throws(() => parseTimeBound('3m', NOW), StoreError);
  });
});

test('clampInt truncates, falls back on a non-number and clamps to the range', () => {
  assert.equal(clampInt(7.9, 3, 1, 10), 7);
  assert.equal(clampInt(undefined, 3, 1, 10), 3);
  assert.equal(clampInt(Number.NaN, 3, 1, 10), 3);
  assert.equal(clampInt(Infinity, 3, 1, 10), 3);
  assert.equal(clampInt(-4, 3, 1, 10), 1);
  assert.equal(clampInt(99, 3, 1, 10), 10);
});

describe('prepareArgs', () => {
  test('a session link for this profile is reduced to the id', () => {
    assert.equal(prepareArgs(input({ session_id: ' @session:work/abc123 ' }, [], 'work')).args.session_id, 'abc123');
    assert.equal(prepareArgs(input({ session_id: 'work/abc123' }, [], 'work')).args.session_id, 'abc123');
    assert.equal(prepareArgs(input({ session_id: '/abc123' }, [], 'work')).args.session_id, 'abc123');
    assert.equal(prepareArgs(input({ session_id: 'abc123' })).args.session_id, 'abc123');
  });

  test('a link to another profile is refused', () => {
    assert.throws(
      () => prepareArgs(input({ session_id: '@session:other/abc' })),
      invalid('session link names Hermes profile "other", but this gateway searches only its own profile ("default"); cross-profile session reads are not available'),
    );
  });

  test('the caller args object is not modified', () => {
    const args = { session_id: 'default/x' };
    prepareArgs(input(args));
    assert.deepEqual(args, { session_id: 'default/x' });
  });

  test('a discover call reads its bounds and exclusions when the Hermes has them', () => {
    const ids = [' a ', 'b', 'a', '', ...Array.from({ length: 30 }, (_, i) => `s${i}`)];
    const call = prepareArgs(
      input({ query: 'deploy', after: '2026-07-01', before: '1d', exclude_session_ids: ids }, ['session_search_time_bounds', 'session_search_exclude_ids']),
      NOW,
    );
    assert.equal(call.afterTs, 1_782_864_000);
    assert.equal(call.beforeTs, 1_782_864_000 - 86_400);
    assert.deepEqual(call.excludeIds, ['a', 'b', ...Array.from({ length: 18 }, (_, i) => `s${i}`)]);
  });

  test('without the changes, or outside discover, bounds and exclusions are not read', () => {
    const noChanges = prepareArgs(input({ query: 'deploy', after: 'garbage', exclude_session_ids: ['a'] }), NOW);
    assert.equal(noChanges.afterTs, undefined);
    assert.deepEqual(noChanges.excludeIds, []);
    const both: SessionSearchChange[] = ['session_search_time_bounds', 'session_search_exclude_ids'];
    const reading = prepareArgs(input({ query: 'deploy', session_id: 'abc', after: 'garbage', exclude_session_ids: ['a'] }, both), NOW);
    assert.equal(reading.afterTs, undefined);
    assert.deepEqual(reading.excludeIds, []);
    const blankQuery = prepareArgs(input({ query: '  ', after: 'garbage' }, both), NOW);
    assert.equal(blankQuery.afterTs, undefined);
    assert.throws(() => prepareArgs(input({ query: 'x', after: 'garbage' }, both), NOW), StoreError);
  });

  test('hidden sources and links follow the call', () => {
    const plain = prepareArgs(input({}, [], 'work'));
    assert.deepEqual(hiddenSources(plain), ['subagent', 'tool']);
    assert.deepEqual(hiddenSources(prepareArgs(input({}, ['session_search_kanban_hidden']))), ['kanban', 'subagent', 'tool']);
    assert.equal(linkOf(plain, 'abc'), '@session:work/abc');
  });
});
