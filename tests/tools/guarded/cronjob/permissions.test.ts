import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enabledActions, parseCronjobMutations } from '../../../../supervisor/tools/guarded/cronjob/permissions.js';

// HERMES_MCP_CRONJOB_MUTATIONS as the host writes it: off, on, or a list of actions; anything else fails closed.

test('off by default, and under every spelling of off; the setting shown as the host wrote it', () => {
  for (const v of [undefined, '', '  ', 'off', 'FALSE', '0', 'no', 'None']) {
    const p = parseCronjobMutations(v);
    assert.deepEqual([[...p.allowed], p.error], [[], undefined], String(v));
  }
  assert.equal(parseCronjobMutations(undefined).setting, 'off');
  assert.equal(parseCronjobMutations(' No ').setting, 'No');
});

test('on under every spelling of on: all six mutations, in order', () => {
  for (const v of ['on', 'ON', 'true', '1', 'yes', ' all ']) {
    assert.deepEqual(enabledActions(parseCronjobMutations(v)), ['create', 'update', 'pause', 'resume', 'remove', 'run'], v);
  }
});

test('a list of actions allows those only, case and spaces ignored; enabledActions keeps the mutation order', () => {
  const p = parseCronjobMutations(' Run, pause ,,resume ');
  assert.deepEqual([...p.allowed], ['run', 'pause', 'resume']);
  assert.deepEqual(enabledActions(p), ['pause', 'resume', 'run']);
  assert.equal(p.setting, 'Run, pause ,,resume');
  assert.equal(p.error, undefined);
});

test('an unknown action, or a list of nothing, fails closed with the setting named', () => {
  const bad = parseCronjobMutations('pause,delete-everything');
  assert.deepEqual([...bad.allowed], []);
  assert.equal(bad.error, 'HERMES_MCP_CRONJOB_MUTATIONS="pause,delete-everything" is not off, on or a list of create/update/pause/resume/remove/run; mutations stay disabled');
  assert.deepEqual(enabledActions(bad), []);
  const empty = parseCronjobMutations(',,');
  assert.deepEqual([[...empty.allowed], empty.error !== undefined], [[], true]);
});
