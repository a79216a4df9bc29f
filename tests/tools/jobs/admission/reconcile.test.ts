import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, isGatewayError } from '../../../../shared/errors.js';
import { auditLogPath, reconcile, RECONCILE_REASON } from '../../../../supervisor/tools/jobs/admission/reconcile.js';
import { admitJob, finishJob, getJob, markRunning, openJobDatabase, prepareJob, type JobDatabase } from '../../../../supervisor/tools/jobs/store/index.js';
import { tempDirs } from '../../../helpers/temp.js';

// The operator's release of `unknown` jobs: a dry run by default, --apply releases each one with
// nothing left of it, records it in the audit log and removes its moot exit record.

const temp = tempDirs();
const open: JobDatabase[] = [];
after(() => {
  for (const db of open) db.close();
  temp.removeAll();
});

const RULES = { maxActive: 10, maxPerSession: 10, maxHeavy: Infinity, memoryBudget: Infinity };
let workdirs = 0;

function setup(): { db: JobDatabase; database: string } {
  const database = join(temp.make('hmcp-reconcile-'), 'jobs.sqlite3');
  const db = openJobDatabase(database);
  open.push(db);
  return { db, database };
}

function job(db: JobDatabase, state: 'unknown' | 'running'): string {
  const r = prepareJob(db, { command: 'make', workdir: `/w/${++workdirs}`, maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 100, ttlMs: 60_000 }, 1000);
  admitJob(db, { id: r.job_id, token: r.recovery_token!, sessionId: 's', instance: { id: 'gone', pid: 1, start: 'x' }, unit: `hmcp-test-none-${r.job_id}` }, RULES, 2000);
  markRunning(db, r.job_id, undefined, 2100);
  if (state === 'unknown') finishJob(db, r.job_id, { state: 'unknown', exitCode: null, signal: null, reason: 'gateway_restarted: completion cannot be proven' }, 3000);
  return r.job_id;
}

function printer(): { out: { print(obj: object, human: string): void }; printed: Array<{ obj: object; human: string }> } {
  const printed: Array<{ obj: object; human: string }> = [];
  return { out: { print: (obj, human) => printed.push({ obj, human }) }, printed };
}

test('a dry run lists the unknown jobs and changes nothing', async () => {
  const { db, database } = setup();
  const id = job(db, 'unknown');
  job(db, 'running');
  const { out, printed } = printer();
  assert.equal(await reconcile(db, out, { database, apply: false }), 0);
  assert.deepEqual(printed[0]!.obj, { apply: false, unknown_jobs: [{ id, workdir: getJob(db, id)!.workdir, started_at: new Date(2000).toISOString(), reason: 'gateway_restarted: completion cannot be proven', remains: [] }] });
  assert.match(printed[0]!.human, /^unknown jobs holding capacity \(dry run; nothing changed\):\n {2}\S+ {2}\/w\/\d+ {2}started 1970-01-01T00:00:02\.000Z {2}nothing of it runs\nrun again with --apply to release them$/);
  assert.equal(getJob(db, id)!.state, 'unknown');
  assert.equal(existsSync(auditLogPath(database)), false);
});

test('--apply releases each unknown job, audits it (0600) and removes its exit record', async () => {
  const { db, database } = setup();
  const id = job(db, 'unknown');
  const live = job(db, 'running');
  mkdirSync(`${database}-exits`);
  writeFileSync(join(`${database}-exits`, `${id}.json`), '{}');
  const { out, printed } = printer();
  assert.equal(await reconcile(db, out, { database, apply: true }), 0);
  assert.deepEqual(printed[0]!.obj, { apply: true, results: [{ id, released: true, state: 'cancelled', killed: [] }] });
  assert.equal(printed[0]!.human, `reconciled:\n  ${id}  released (cancelled)`);
  assert.deepEqual([getJob(db, id)!.state, getJob(db, id)!.termination_reason], ['cancelled', RECONCILE_REASON]);
  assert.equal(getJob(db, live)!.state, 'running', 'a live job is never touched');
  assert.equal(existsSync(join(`${database}-exits`, `${id}.json`)), false);
  const lines = readFileSync(auditLogPath(database), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines.length, 1);
  assert.deepEqual([lines[0]!.action, lines[0]!.job, lines[0]!.state, lines[0]!.reason, lines[0]!.previous_reason], ['reconcile', id, 'cancelled', RECONCILE_REASON, 'gateway_restarted: completion cannot be proven']);
  assert.equal(statSync(auditLogPath(database)).mode & 0o777, 0o600);
});

test('nothing unknown: both modes say so and succeed', async () => {
  const { db, database } = setup();
  for (const apply of [false, true]) {
    const { out, printed } = printer();
    assert.equal(await reconcile(db, out, { database, apply }), 0);
    assert.equal(printed[0]!.human, 'no unknown jobs');
  }
});

test('--job-id names one unknown job; a missing or not-unknown one is JOB_NOT_FOUND', async () => {
  const { db, database } = setup();
  const a = job(db, 'unknown');
  const b = job(db, 'unknown');
  const live = job(db, 'running');
  const { out, printed } = printer();
  assert.equal(await reconcile(db, out, { database, apply: true, jobId: b }), 0);
  assert.deepEqual((printed[0]!.obj as { results: Array<{ id: string }> }).results.map((r) => r.id), [b]);
  assert.equal(getJob(db, a)!.state, 'unknown');
  await assert.rejects(reconcile(db, out, { database, apply: false, jobId: 'nope' }), (e: unknown) => isGatewayError(e) && e.code === ErrorCode.JOB_NOT_FOUND && e.message === 'no job nope in this database');
  await assert.rejects(reconcile(db, out, { database, apply: true, jobId: live }), (e: unknown) => isGatewayError(e) && e.code === ErrorCode.JOB_NOT_FOUND && /is running, not unknown/.test(e.message));
});
