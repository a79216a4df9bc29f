import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Limits } from '../../../../shared/limits.js';
import type { ResourceState } from '../../../../supervisor/platform/spawning/resource-policy.js';
import { admissionReport } from '../../../../supervisor/tools/jobs/admission/report.js';
import { finishJob, pauseAdmission, prepareJob, admitJob } from '../../../../supervisor/tools/jobs/store/index.js';
import { jobDatabasesForFile } from '../../../helpers/job-database.js';

// /readyz.job_admission: accepting only with no reason against it, and every reason said.

const DEV: ResourceState = { mode: 'development', enforcement: 'none', reason: 'development mode: no resource policy' };
const LIMITS = { maxActiveJobs: 2 } as Limits;
const facts = { resources: DEV, limits: LIMITS, admissionCommand: 'hermes-mcp-admission' };

const database = jobDatabasesForFile('hmcp-report-');

test('development mode with an open store and nothing paused accepts, with no reasons', () => {
  const report = admissionReport({ ...facts, db: database(), runner: { signalPaused: false, activeLocal: 1 } });
  assert.equal(report.accepting, true);
  assert.equal(report.store, 'ok');
  assert.equal(report.active_jobs_here, 1);
  assert.equal('reasons' in report, false);
});

test('a missing store, a failed policy, the operator pause and the signal pause are each a reason', () => {
  const db = database();
  pauseAdmission(db, 'o'.repeat(40), 'upgrade', 1);
  const failed: ResourceState = { mode: 'failed', enforcement: 'none', reason: 'resource policy invalid' };
  const report = admissionReport({ ...facts, resources: failed, db, runner: { signalPaused: true, activeLocal: 0 }, storeError: 'job database /x: locked' });
  assert.equal(report.accepting, false);
  assert.deepEqual(report.reasons, ['job database /x: locked', 'resource policy invalid', 'paused by the operator (upgrade)', 'paused by the local operator signal (SIGUSR1)']);
  assert.deepEqual([report.store, report.paused, report.signal_paused], ['unavailable', true, true]);
});

test('unknown jobs are counted with the command that frees them, and a reason once they hold every slot', () => {
  const db = database();
  for (const n of [1, 2]) {
    const p = prepareJob(db, { command: 'make', workdir: `/w/${n}`, maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 10, ttlMs: 60_000 }, 0);
    admitJob(db, { id: p.job_id, token: p.recovery_token!, sessionId: 's', instance: { id: 'gone', pid: 1, start: 'x' }, unit: 'u' }, { maxActive: 5, maxPerSession: 5, maxHeavy: Infinity, memoryBudget: Infinity }, 1);
    finishJob(db, p.job_id, { state: 'unknown', exitCode: null, signal: null, reason: 'gateway_restarted' }, 2);
    const report = admissionReport({ ...facts, db });
    assert.equal(report.unknown_jobs, n);
    assert.match(String(report.unknown_jobs_action), /^hermes-mcp-admission reconcile \(lists them/);
    assert.equal(report.accepting, n < 2, `${n} unknown of 2 slots`);
  }
  assert.deepEqual(admissionReport({ ...facts, db }).reasons, ['2 unknown jobs hold all 2 job slots']);
});
