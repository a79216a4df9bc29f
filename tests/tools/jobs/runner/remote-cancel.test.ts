import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { processStartTime } from '../../../../shared/proc.js';
import { cancelThroughDatabase, cancelUnknown } from '../../../../supervisor/tools/jobs/runner/remote-cancel.js';
import { admitJob, finishJob, getJob, markRunning, prepareJob, type Instance, type JobDatabase } from '../../../../supervisor/tools/jobs/store/index.js';
import { jobDatabasesForFile } from '../../../helpers/job-database.js';
import { waitFor } from '../../../helpers/wait.js';

// Cancelling a job this process does not run: through the database for a live owner, or by
// releasing an unknown job once nothing of it remains.

const RULES = { maxActive: 10, maxPerSession: 10, maxHeavy: Infinity, memoryBudget: Infinity };
const OTHER: Instance = { id: 'other', pid: process.pid, start: 'x' };
let workdirs = 0;

const database = jobDatabasesForFile('hmcp-remote-cancel-');

function runningJob(db: JobDatabase, worker?: { pid: number; start: string }): string {
  const r = prepareJob(db, { command: 'make', workdir: `/w/${++workdirs}`, maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 100, ttlMs: 60_000 }, 1000);
  admitJob(db, { id: r.job_id, token: r.recovery_token!, sessionId: 's', instance: OTHER, unit: `hmcp-test-none-${r.job_id}` }, RULES, 2000);
  markRunning(db, r.job_id, worker, 2100);
  return r.job_id;
}

test('the cancel request is recorded and the receipt read back until the owning process makes it final', async () => {
  const db = database();
  const id = runningJob(db);
  // The owning process's maintenance loop, standing in: it sees the request and stops the job.
  const owner = waitFor(() => getJob(db, id)!.cancel_requested === 1, 5000, 'the cancel request').then(() => finishJob(db, id, { state: 'cancelled', exitCode: null, signal: 'SIGTERM', reason: 'cancelled' }, 3000));
  const row = await cancelThroughDatabase(db, getJob(db, id)!, 5, 2500);
  await owner;
  assert.equal(row.state, 'cancelled');
  assert.equal(row.signal, 'SIGTERM');
  assert.equal(row.cancel_requested, 1);
});

test('a row already final comes back at once', async () => {
  const db = database();
  const id = runningJob(db);
  finishJob(db, id, { state: 'succeeded', exitCode: 0, signal: null, reason: 'exited' }, 3000);
  const started = performance.now();
  const row = await cancelThroughDatabase(db, getJob(db, id)!, 5, 3500);
  assert.equal(row.state, 'succeeded');
  assert.ok(performance.now() - started < 1000);
});

test('an unknown job with no process left is cancelled with the reason; its live worker is killed first', async () => {
  const db = database();
  const none = runningJob(db);
  finishJob(db, none, { state: 'unknown', exitCode: null, signal: null, reason: 'gateway_restarted' }, 3000);
  const row = await cancelUnknown(db, none, 4000, undefined);
  assert.deepEqual([row.state, row.termination_reason, row.finished_at], ['cancelled', 'cancelled_after_unknown: no process of the job remains', 4000]);

  const child = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_c, s) => resolve(s)));
  const live = runningJob(db, { pid: child.pid!, start: processStartTime(child.pid!)! });
  finishJob(db, live, { state: 'unknown', exitCode: null, signal: null, reason: 'gateway_restarted' }, 3000);
  const released = await cancelUnknown(db, live, 4000, undefined);
  assert.equal(await exited, 'SIGKILL');
  assert.equal(released.state, 'cancelled');

  const done = runningJob(db);
  finishJob(db, done, { state: 'failed', exitCode: 1, signal: null, reason: 'exited' }, 3000);
  assert.equal((await cancelUnknown(db, done, 4000, undefined)).state, 'failed', 'a job that is not unknown is left as it is');
});
