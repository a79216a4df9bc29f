import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gateState, liveSignalPauses, OWNER_TOKEN_PATTERN, pauseAdmission, recordSignalPause, resumeAdmission } from '../../../../supervisor/tools/jobs/store/gate.js';
import { jobDatabasesForFile } from '../../../helpers/job-database.js';

const database = jobDatabasesForFile('hmcp-gate-');

const MINE = 'a'.repeat(40);
const THEIRS = 'b'.repeat(40);

test('the gate is claimed by one owner token: the same token may claim again and resume; another may do neither', () => {
  const db = database();
  assert.deepEqual(gateState(db), { paused: false, paused_at: null, reason: null });
  pauseAdmission(db, MINE, 'maintenance', 1000);
  pauseAdmission(db, MINE, 'maintenance, retried', 2000);
  assert.deepEqual(gateState(db), { paused: true, paused_at: 2000, reason: 'maintenance, retried' });
  assert.throws(() => pauseAdmission(db, THEIRS, 'mine now', 3000), /ADMISSION_GATE_HELD|another operator token/);
  assert.throws(() => resumeAdmission(db, THEIRS), /another operator token/);
  assert.equal(resumeAdmission(db, MINE), true);
  assert.equal(gateState(db).paused, false);
  assert.equal(resumeAdmission(db, MINE), false, 'not paused any more');
});

test("signal pauses are one row per gateway process; a dead process's row is dropped when read", () => {
  const db = database();
  recordSignalPause(db, { id: 'live', pid: 11, start: 's11' }, true, 100);
  recordSignalPause(db, { id: 'dead', pid: 22, start: 's22' }, true, 200);
  assert.deepEqual(liveSignalPauses(db, (pid) => pid === 11), [{ pid: 11, paused_at: 100 }]);
  assert.deepEqual(liveSignalPauses(db, () => true), [{ pid: 11, paused_at: 100 }], 'the dead row is gone');
  recordSignalPause(db, { id: 'live', pid: 11, start: 's11' }, false, 300);
  assert.deepEqual(liveSignalPauses(db, () => true), []);
});

test('an owner token is 32-128 safe characters', () => {
  assert.equal(OWNER_TOKEN_PATTERN.test('x'.repeat(31)), false);
  assert.equal(OWNER_TOKEN_PATTERN.test('x'.repeat(32)), true);
  assert.equal(OWNER_TOKEN_PATTERN.test('Ab0._~+/='.repeat(4)), true);
  assert.equal(OWNER_TOKEN_PATTERN.test('x'.repeat(129)), false);
  assert.equal(OWNER_TOKEN_PATTERN.test(`${'x'.repeat(32)} `), false);
});
