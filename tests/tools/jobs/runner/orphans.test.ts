import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import { processStartTime } from '../../../../shared/proc.js';
import { enforceOrphanDeadlines, reconcileOrphanJob, reconcileOrphanJobs } from '../../../../supervisor/tools/jobs/runner/orphans.js';
import { admitJob, getJob, markRunning, openJobDatabase, prepareJob, type Instance, type JobDatabase } from '../../../../supervisor/tools/jobs/store/index.js';
import { logSink } from '../../../helpers/log-sink.js';
import { tempDirs } from '../../../helpers/temp.js';
import { waitFor } from '../../../helpers/wait.js';

// Jobs whose gateway process is gone: their outcome from the exit record, or `unknown`; and the
// deadline an unowned process of an unknown job still gets.

const temp = tempDirs();
const open: JobDatabase[] = [];
const children: number[] = [];
after(() => {
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const db of open) db.close();
  temp.removeAll();
});

const RULES = { maxActive: 10, maxPerSession: 10, maxHeavy: Infinity, memoryBudget: Infinity };
const GONE: Instance = { id: 'gone', pid: 999_999_999, start: 'never' };
const HERE: Instance = { id: 'here', pid: process.pid, start: processStartTime(process.pid)! };
let workdirs = 0;

function setup(): { db: JobDatabase; exitsDir: string; log: pino.Logger; lines: string[] } {
  const dir = temp.make('hmcp-orphans-');
  const db = openJobDatabase(join(dir, 'jobs.sqlite3'));
  open.push(db);
  const sink = logSink();
  return { db, exitsDir: dir, log: pino(sink.stream), lines: sink.lines };
}

function runningJob(db: JobDatabase, instance: Instance, worker?: { pid: number; start: string }): string {
  const r = prepareJob(db, { command: 'make', workdir: `/w/${++workdirs}`, maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 100, ttlMs: 60_000 }, 1000);
  admitJob(db, { id: r.job_id, token: r.recovery_token!, sessionId: 's', instance, unit: 'u' }, RULES, 2000);
  markRunning(db, r.job_id, worker, 2100);
  return r.job_id;
}

test('an orphan with an exit record gets the recorded outcome, and the record is removed', () => {
  const { db, exitsDir, log, lines } = setup();
  const ok = runningJob(db, GONE);
  const bad = runningJob(db, GONE);
  const killed = runningJob(db, GONE);
  writeFileSync(join(exitsDir, `${ok}.json`), JSON.stringify({ exitCode: 0, signal: null, killed: false }));
  writeFileSync(join(exitsDir, `${bad}.json`), JSON.stringify({ exitCode: null, signal: 'SIGSEGV', killed: false }));
  writeFileSync(join(exitsDir, `${killed}.json`), JSON.stringify({ exitCode: null, signal: null, killed: true }));
  reconcileOrphanJobs(db, { instance: HERE, exitsDir, log, now: 5000 });
  assert.deepEqual([getJob(db, ok)!.state, getJob(db, ok)!.exit_code, getJob(db, ok)!.termination_reason], ['succeeded', 0, 'exited (recovered from the exit record after a gateway restart)']);
  assert.deepEqual([getJob(db, bad)!.state, getJob(db, bad)!.signal, getJob(db, bad)!.termination_reason], ['failed', 'SIGSEGV', 'signal SIGSEGV (recovered from the exit record after a gateway restart)']);
  assert.deepEqual([getJob(db, killed)!.state, getJob(db, killed)!.signal], ['cancelled', 'SIGKILL']);
  for (const id of [ok, bad, killed]) assert.equal(existsSync(join(exitsDir, `${id}.json`)), false);
  assert.equal(lines.filter((l) => (JSON.parse(l) as { event?: string }).event === 'job_reconciled').length, 3);
});

test('without a record an orphan is unknown, saying whether its process still runs', () => {
  const { db, exitsDir, log } = setup();
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(child.pid!);
  const alive = runningJob(db, GONE, { pid: child.pid!, start: processStartTime(child.pid!)! });
  const dead = runningJob(db, GONE, { pid: 999_999_999, start: 'x' });
  writeFileSync(join(exitsDir, `${dead}.json`), '{not json');
  reconcileOrphanJobs(db, { instance: HERE, exitsDir, log, now: 5000 });
  assert.deepEqual([getJob(db, alive)!.state, getJob(db, alive)!.termination_reason], ['unknown', 'gateway_restarted: the job process is still running unowned']);
  assert.deepEqual([getJob(db, dead)!.state, getJob(db, dead)!.termination_reason], ['unknown', 'gateway_restarted: completion cannot be proven'], 'an unreadable record is no record');
});

test("this process's jobs, a live process's jobs and unknown jobs are left alone", () => {
  const { db, exitsDir, log } = setup();
  const mine = runningJob(db, HERE);
  const live = runningJob(db, { id: 'other', pid: process.pid, start: HERE.start });
  reconcileOrphanJobs(db, { instance: HERE, exitsDir, log, now: 5000 });
  assert.equal(getJob(db, mine)!.state, 'running');
  assert.equal(getJob(db, live)!.state, 'running');
  const unknown = runningJob(db, GONE);
  reconcileOrphanJob(db, getJob(db, unknown)!, { exitsDir, log, now: 5000 });
  assert.equal(getJob(db, unknown)!.state, 'unknown');
  writeFileSync(join(exitsDir, `${unknown}.json`), JSON.stringify({ exitCode: 0, signal: null, killed: false }));
  reconcileOrphanJobs(db, { instance: HERE, exitsDir, log, now: 6000 });
  assert.equal(getJob(db, unknown)!.state, 'unknown', 'an unknown job is released only by a verified cancel');
});

test("an unknown job's live process past its deadline gets TERM, and KILL once the grace has passed", async () => {
  const { db, exitsDir, log } = setup();
  // A child that ignores TERM: only KILL ends it.
  const child = spawn('bash', ['-c', 'trap "" TERM; echo ready; while :; do sleep 0.1; done'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  children.push(child.pid!);
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_c, s) => resolve(s)));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('ready'), 5000, 'the child to trap TERM');
  const id = runningJob(db, GONE, { pid: child.pid!, start: processStartTime(child.pid!)! });
  reconcileOrphanJobs(db, { instance: HERE, exitsDir, log, now: 5000 });
  const deadline = getJob(db, id)!.deadline_at!;
  enforceOrphanDeadlines(db, 10_000, deadline - 1);
  enforceOrphanDeadlines(db, 10_000, deadline);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(child.exitCode, null, 'TERM is trapped; before the grace nothing else is sent');
  assert.equal(child.signalCode, null);
  enforceOrphanDeadlines(db, 10_000, deadline + 10_000);
  assert.equal(await exited, 'SIGKILL');
});
