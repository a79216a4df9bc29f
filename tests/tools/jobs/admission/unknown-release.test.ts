import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { processStartTime } from '../../../../shared/proc.js';
import { JOB_SLICE, releaseUnknownJob, remainsOf } from '../../../../supervisor/tools/jobs/admission/unknown-release.js';
import { admitJob, finishJob, getJob, markRunning, prepareJob, type JobDatabase } from '../../../../supervisor/tools/jobs/store/index.js';
import { jobDatabasesForFile } from '../../../helpers/job-database.js';
import { tempDirs } from '../../../helpers/temp.js';
import { waitFor } from '../../../helpers/wait.js';

// Releasing an `unknown` job only once nothing of it runs: its worker (a real process group here)
// and the cgroups it may sit in (a directory of this test's own standing in for the cgroup mount).

const temp = tempDirs();
const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  temp.removeAll();
});

const RULES = { maxActive: 10, maxPerSession: 10, maxHeavy: Infinity, memoryBudget: Infinity };
const REASON = 'released by the test';
const UID = process.getuid?.() ?? 0;
let workdirs = 0;

const database = jobDatabasesForFile('hmcp-unknown-release-');

function job(db: JobDatabase, state: 'unknown' | 'running', worker?: { pid: number; start: string }): string {
  const r = prepareJob(db, { command: 'make', workdir: `/w/${++workdirs}`, maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 100, ttlMs: 60_000 }, 1000);
  admitJob(db, { id: r.job_id, token: r.recovery_token!, sessionId: 's', instance: { id: 'gone', pid: 1, start: 'x' }, unit: `hermes-job-${r.job_id}` }, RULES, 2000);
  markRunning(db, r.job_id, worker, 2100);
  if (state === 'unknown') finishJob(db, r.job_id, { state: 'unknown', exitCode: null, signal: null, reason: 'gateway_restarted: completion cannot be proven' }, 3000);
  return r.job_id;
}

/** A worker standing in for a job's: the leader of its own process group. */
async function worker(): Promise<{ child: ChildProcess; pid: number; start: string }> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
  started.push(child);
  const pid = child.pid!;
  const start = await waitFor(() => processStartTime(pid), 5000, 'the worker');
  return { child, pid, start };
}

function scopeDir(mount: string, id: string): string {
  return join(mount, 'user.slice', `user-${UID}.slice`, `user@${UID}.service`, JOB_SLICE, `hermes-job-${id}.scope`);
}

test('a job that is not unknown is returned as it is', async () => {
  const db = database();
  const id = job(db, 'running');
  const outcome = await releaseUnknownJob(db, id, { now: 5000, reason: REASON });
  assert.equal(outcome.released, false);
  assert.deepEqual(outcome.killed, []);
  assert.equal(outcome.row.state, 'running');
  assert.equal(getJob(db, id)!.state, 'running');
  await assert.rejects(releaseUnknownJob(db, 'job_missing', { now: 5000, reason: REASON }), { message: 'job job_missing disappeared' });
});

test('nothing left: released as cancelled with the reason, once', async () => {
  const db = database();
  const id = job(db, 'unknown');
  const mount = temp.make('hmcp-cgroup-');
  assert.deepEqual(remainsOf(getJob(db, id)!, { cgroupMount: mount }), []);
  const outcome = await releaseUnknownJob(db, id, { now: 5000, reason: REASON, cgroupMount: mount });
  assert.equal(outcome.released, true);
  assert.deepEqual(outcome.killed, []);
  assert.equal(outcome.remaining, undefined);
  assert.equal(outcome.row.state, 'cancelled');
  assert.equal(outcome.row.termination_reason, REASON);
  assert.equal(outcome.row.finished_at, 5000);
  assert.equal((await releaseUnknownJob(db, id, { now: 6000, reason: 'again' })).released, false);
  assert.equal(getJob(db, id)!.termination_reason, REASON);
});

test('a live worker is shown by the dry run, then killed (its group) before the release', async () => {
  const db = database();
  const w = await worker();
  const id = job(db, 'unknown', { pid: w.pid, start: w.start });
  const mount = temp.make('hmcp-cgroup-');
  assert.deepEqual(remainsOf(getJob(db, id)!, { cgroupMount: mount }), [`worker pid ${w.pid}`]);
  const exited = once(w.child, 'exit');
  const outcome = await releaseUnknownJob(db, id, { now: 5000, reason: REASON, cgroupMount: mount });
  assert.deepEqual(outcome.killed, [`worker pid ${w.pid}`]);
  assert.equal(outcome.released, true);
  assert.equal(outcome.row.state, 'cancelled');
  assert.equal((await exited)[1], 'SIGKILL');
  assert.deepEqual(remainsOf(getJob(db, id)!, { cgroupMount: mount }), []);
});

test('a recorded worker whose pid now runs something else is not the job', async () => {
  const db = database();
  const w = await worker();
  const id = job(db, 'unknown', { pid: w.pid, start: `${w.start}0` });
  assert.deepEqual(remainsOf(getJob(db, id)!, { cgroupMount: temp.make('hmcp-cgroup-') }), []);
  const outcome = await releaseUnknownJob(db, id, { now: 5000, reason: REASON, cgroupMount: temp.make('hmcp-cgroup-') });
  assert.equal(outcome.released, true);
  assert.deepEqual(outcome.killed, []);
  assert.equal(w.child.exitCode, null);
  assert.equal(w.child.signalCode, null);
});

test('cgroups: an empty one is no obstacle; one whose processes survive keeps the job unknown', async () => {
  const db = database();
  const id = job(db, 'unknown');
  const mount = temp.make('hmcp-cgroup-');
  const root = temp.make('hmcp-cgroup-root-');
  const scope = scopeDir(mount, id);
  const ours = join(root, `hermes-job-${id}`);
  mkdirSync(scope, { recursive: true });
  mkdirSync(ours);
  writeFileSync(join(scope, 'cgroup.procs'), '');
  const w = await worker();
  // A cgroup.procs that keeps listing the pid after it is killed: what a survivor looks like.
  writeFileSync(join(ours, 'cgroup.procs'), `${w.pid}\n`);
  const row = getJob(db, id)!;
  assert.deepEqual(remainsOf(row, { cgroupMount: mount, cgroupRoot: root }), [`cgroup ${ours} (1 processes)`]);
  assert.deepEqual(remainsOf(row, { cgroupMount: mount }), []);
  const exited = once(w.child, 'exit');
  const outcome = await releaseUnknownJob(db, id, { now: 5000, reason: REASON, cgroupMount: mount, cgroupRoot: root });
  assert.equal((await exited)[1], 'SIGKILL');
  assert.equal(outcome.released, false);
  assert.deepEqual(outcome.killed, [`cgroup ${ours} (1 processes)`]);
  assert.equal(outcome.remaining, `cgroup ${ours} still holds processes`);
  assert.equal(getJob(db, id)!.state, 'unknown');
});
