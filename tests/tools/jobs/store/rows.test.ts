import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { admitJob, finishJob, prepareJob, type JobDatabase } from '../../../../supervisor/tools/jobs/store/index.js';
import { ACTIVE_SQL, activeJobs, FINAL_SQL, getJob, hashSecret, isFinal, jobCounts, sameHash, stmt } from '../../../../supervisor/tools/jobs/store/rows.js';
import { jobDatabasesForFile } from '../../../helpers/job-database.js';

// A job's row and the reads every part of the store shares.

const database = jobDatabasesForFile('hmcp-rows-');

let workdirs = 0;
function prepared(db: JobDatabase): { id: string; token: string } {
  const r = prepareJob(db, { command: 'make', workdir: `/w/${++workdirs}`, maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 100, ttlMs: 60_000 }, 1000);
  return { id: r.job_id, token: r.recovery_token! };
}

test('final and active states', () => {
  for (const s of ['succeeded', 'failed', 'cancelled', 'timed_out', 'expired'] as const) assert.equal(isFinal(s), true, s);
  for (const s of ['prepared', 'starting', 'running', 'unknown'] as const) assert.equal(isFinal(s), false, s);
  assert.equal(ACTIVE_SQL, "('starting','running','unknown')");
  assert.equal(FINAL_SQL, "('succeeded','failed','cancelled','timed_out','expired')");
});

test('hashSecret is SHA-256 hex of the UTF-8 text; sameHash compares hex digests of equal length only', () => {
  assert.equal(hashSecret('é'), createHash('sha256').update(Buffer.from([0xc3, 0xa9])).digest('hex'));
  assert.equal(hashSecret(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  const h = hashSecret('token');
  assert.equal(sameHash(h, hashSecret('token')), true);
  assert.equal(sameHash(h, hashSecret('other')), false);
  assert.equal(sameHash(h, h.slice(0, 62)), false, 'a shorter digest never matches (and never throws)');
  assert.equal(sameHash('', ''), true);
});

test('stmt compiles a statement once per connection', () => {
  const a = database();
  const b = database();
  const sql = 'SELECT count(*) AS n FROM jobs';
  assert.equal(stmt(a, sql), stmt(a, sql));
  assert.notEqual(stmt(a, sql), stmt(b, sql));
});

test('getJob, activeJobs and jobCounts read the rows as they are', () => {
  const db = database();
  assert.equal(getJob(db, 'nope'), undefined);
  assert.deepEqual(activeJobs(db), []);
  assert.deepEqual(jobCounts(db), {});
  const waiting = prepared(db);
  const run = prepared(db);
  const done = prepared(db);
  const rules = { maxActive: 4, maxPerSession: 4, maxHeavy: Infinity, memoryBudget: Infinity };
  const here = { id: 'here', pid: process.pid, start: 'now' };
  admitJob(db, { id: run.id, token: run.token, sessionId: 's', instance: here, unit: 'u1' }, rules, 2000);
  admitJob(db, { id: done.id, token: done.token, sessionId: 's', instance: here, unit: 'u2' }, rules, 2000);
  finishJob(db, done.id, { state: 'failed', exitCode: 2, signal: null, reason: 'exited' }, 3000);
  const row = getJob(db, run.id)!;
  assert.equal(row.state, 'starting');
  assert.equal(row.command, null, 'the command leaves the row once it is handed to the runner');
  assert.equal(getJob(db, waiting.id)!.command, 'make');
  assert.equal(row.instance_id, 'here');
  assert.equal(getJob(db, waiting.id)!.token_hash, hashSecret(waiting.token));
  assert.deepEqual(activeJobs(db).map((r) => r.id), [run.id]);
  assert.deepEqual(jobCounts(db), { prepared: 1, starting: 1, failed: 1 });
});
