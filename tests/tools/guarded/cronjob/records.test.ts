import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contextFromArg, invalidArgs, normalizeDeliver, skillsArg } from '../../../../supervisor/tools/guarded/cronjob/records.js';

// The gateway's own checks of the cronjob arguments it hands to Hermes.

test('normalizeDeliver: unset or blank is null; targets trimmed and rejoined; anything else INVALID_ARGUMENTS naming the field', () => {
  assert.equal(normalizeDeliver(undefined), null);
  assert.equal(normalizeDeliver(null), null);
  assert.equal(normalizeDeliver('  '), null);
  assert.equal(normalizeDeliver(' local , telegram:-100123:7,discord '), 'local,telegram:-100123:7,discord');
  assert.equal(normalizeDeliver('slack:#general'), 'slack:#general');
  for (const bad of ['local,', '1st', 'a b', 'tele gram:1', 'x:\u0001', ':chat']) {
    assert.throws(() => normalizeDeliver(bad), { code: 'INVALID_ARGUMENTS' }, bad);
  }
  assert.throws(() => normalizeDeliver('no way', 'failure_deliver'), /^GatewayError: cronjob: failure_deliver "no way" is not a delivery target/);
});

test('skillsArg: canonical skill names; a path out or an absolute path is INVALID_ARGUMENTS', () => {
  assert.equal(skillsArg(undefined), undefined);
  assert.deepEqual(skillsArg([' a ', 'a', 'cat/b', '']), ['a', 'cat/b']);
  assert.deepEqual(skillsArg([]), []);
  for (const bad of [['../x'], ['a/../../b'], ['a\\..\\b'], ['/etc/x']]) assert.throws(() => skillsArg(bad), { code: 'INVALID_ARGUMENTS' }, JSON.stringify(bad));
});

test('contextFromArg: trimmed job ids, blanks and repeats dropped; invalidArgs is INVALID_ARGUMENTS', () => {
  assert.equal(contextFromArg(undefined), undefined);
  assert.deepEqual(contextFromArg([' j1 ', 'j2', 'j1', '  ']), ['j1', 'j2']);
  const e = invalidArgs('m');
  assert.deepEqual([e.code, e.message], ['INVALID_ARGUMENTS', 'm']);
});
