import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admitJob, getJob, prepareJob, type JobDatabase } from '../../../../supervisor/tools/jobs/store/index.js';
import { cancelPrepared, cancelRequestsFor, finishJob, markRunning, recordOutput, requestCancel, sweepJobs } from '../../../../supervisor/tools/jobs/store/receipts.js';
import { jobDatabasesForFile } from '../../../helpers/job-database.js';

const RULES = { maxActive: 4, maxPerSession: 4, maxHeavy: Infinity, memoryBudget: Infinity };
const HERE = { id: 'here', pid: process.pid, start: 'now' };
let workdirs = 0;

const database = jobDatabasesForFile('hmcp-receipts-');

function prepared(db: JobDatabase, now = 1000): { id: string; token: string } {
  const r = prepareJob(db, { command: 'make', workdir: `/w/${++workdirs}`, maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 100, ttlMs: 60_000 }, now);
  return { id: r.job_id, token: r.recovery_token! };
}

function running(db: JobDatabase): string {
  const { id, token } = prepared(db);
  admitJob(db, { id, token, sessionId: 's', instance: HERE, unit: 'u' }, RULES, 2000);
  markRunning(db, id, { pid: 1, start: 'x' }, 2100);
  return id;
}

test('an ending is recorded once: a final receipt is never rewritten', () => {
  const db = database();
  const id = running(db);
  assert.equal(getJob(db, id)!.state, 'running');
  const output = { tail: 'done\n', styled: null, bytes: 5, truncated: false };
  assert.equal(finishJob(db, id, { state: 'succeeded', exitCode: 0, signal: null, reason: 'exited', output }, 3000), true);
  assert.equal(finishJob(db, id, { state: 'failed', exitCode: 1, signal: null, reason: 'late' }, 4000), false);
  const row = getJob(db, id)!;
  assert.deepEqual([row.state, row.exit_code, row.finished_at, row.output_tail, row.output_truncated], ['succeeded', 0, 3000, 'done\n', 0]);
});

test('an ending without output keeps the output recorded so far; an unknown ending is not final', () => {
  const db = database();
  const id = running(db);
  recordOutput(db, id, { tail: 'so far', styled: '\u001b[1mso far\u001b[0m', bytes: 14, truncated: true }, 2500);
  finishJob(db, id, { state: 'unknown', exitCode: null, signal: null, reason: 'gateway_restarted' }, 3000);
  const row = getJob(db, id)!;
  assert.deepEqual([row.state, row.finished_at, row.output_tail, row.output_bytes, row.output_truncated], ['unknown', null, 'so far', 14, 1]);
  assert.equal(row.output_styled, '\u001b[1mso far\u001b[0m', 'the twin of the kept tail stays with it');
});

test('cancel requests are found by the instance that runs the job', () => {
  const db = database();
  const id = running(db);
  assert.deepEqual([...cancelRequestsFor(db, HERE)], []);
  requestCancel(db, id, 2500);
  assert.deepEqual([...cancelRequestsFor(db, HERE)], [id]);
  assert.deepEqual([...cancelRequestsFor(db, { ...HERE, id: 'other' })], []);
});

test('a prepared job cancels at once with its command gone; a started one does not cancel that way', () => {
  const db = database();
  const { id } = prepared(db);
  assert.equal(cancelPrepared(db, id, 1500), true);
  const row = getJob(db, id)!;
  assert.deepEqual([row.state, row.command, row.termination_reason], ['cancelled', null, 'cancelled_before_start']);
  assert.equal(cancelPrepared(db, running(db), 1500), false);
});

test('the sweep expires unused preparations and deletes receipts older than the retention', () => {
  const db = database();
  const stale = prepared(db, 0);
  const fresh = prepared(db, 100_000);
  const done = running(db);
  finishJob(db, done, { state: 'succeeded', exitCode: 0, signal: null, reason: 'exited' }, 5000);
  assert.deepEqual(sweepJobs(db, 1_000_000, 70_000), { expired: 1, deleted: 0 });
  assert.equal(getJob(db, stale.id)!.state, 'expired');
  assert.equal(getJob(db, stale.id)!.command, null);
  assert.equal(getJob(db, fresh.id)!.state, 'prepared');
  assert.deepEqual(sweepJobs(db, 1000, 80_000), { expired: 0, deleted: 2 }, 'the finished and the expired receipt');
  assert.equal(getJob(db, done), undefined);
});
