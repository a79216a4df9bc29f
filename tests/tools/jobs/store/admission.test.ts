import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { ErrorCode, isGatewayError } from '../../../../shared/errors.js';
import { admitJob, finishJob, getJob, prepareJob, type AdmissionRules, type JobRow } from '../../../../supervisor/tools/jobs/store/index.js';
import { openJobDatabase, type JobDatabase } from '../../../../supervisor/tools/jobs/store/index.js';
import {
  installInvariantTrigger,
  invariantViolations,
  killRacers,
  releaseTogether,
  startRacer,
  type RacerConfig,
  type RacerJob,
  type RacerResult,
  type RunningRacer,
} from '../../../helpers/admission-racer.js';
import { within } from '../../../helpers/wait.js';

// Admission under real contention: two separate processes (tests/helpers/admission-racer.ts) admit
// the same prepared jobs against one SQLite file at the same instant. The racers only count; this
// file judges the database afterwards with its own checks (its own nesting rule, its own SQL), and
// the churn test also arms a test-only trigger that aborts any admission leaving the active set
// outside the rules at any moment, not just at the end.

const RULES: AdmissionRules = { maxActive: 4, maxPerSession: 2, maxHeavy: Infinity, memoryBudget: Infinity };
const SESSIONS = ['s0', 's1', 's2', 's3', 's4', 's5'];
/** Same, nested, sibling-with-common-prefix (/w/ab is not inside /w/a) and disjoint directories. */
const NESTED_WORKDIRS = ['/w/a', '/w/a/b', '/w/c', '/w/c', '/w/d/e', '/w/d', '/w/ab', '/w/a/b/c', '/w/f', '/w/f/g/h', '/w/c/x', '/w/g'];
const REFUSALS = new Set<string>([
  'ALREADY_STARTED',
  ErrorCode.JOB_QUOTA_EXCEEDED,
  ErrorCode.JOB_SESSION_QUOTA_EXCEEDED,
  ErrorCode.JOB_WORKSPACE_BUSY,
  ErrorCode.JOB_HEAVY_BUSY,
  ErrorCode.JOB_MEMORY_UNAVAILABLE,
]);
const GiB = 1024 ** 3;
const RACE_MS = 60_000;

/** The nesting rule written again here, independently of nestedPaths. */
const nests = (a: string, b: string) => a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);

interface JobSpec {
  workdir: string;
  heavy?: boolean;
  memory?: number;
}

describe('job admission races between processes', () => {
  let dir: string;
  const dbs: JobDatabase[] = [];
  const racers: RunningRacer[] = [];
  let seq = 0;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hmcp-admission-race-'));
  });
  after(() => {
    killRacers(racers);
    for (const db of dbs) if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function freshDb(): { path: string; db: JobDatabase } {
    const path = join(dir, `jobs-${++seq}.sqlite3`);
    const db = openJobDatabase(path);
    dbs.push(db);
    return { path, db };
  }

  function prepareAll(db: JobDatabase, specs: JobSpec[]): RacerJob[] {
    return specs.map((s, i) => {
      const r = prepareJob(
        db,
        { command: `echo ${i}`, workdir: s.workdir, maxRuntime: 600, profile: s.heavy ? 'heavy' : 'light', heavy: s.heavy ?? false, memoryReservation: s.memory ?? 0, preparedBy: 'cap:test' },
        { maxPrepared: 100_000, ttlMs: 3_600_000 },
        Date.now(),
      );
      assert.ok(r.recovery_token);
      return { id: r.job_id, token: r.recovery_token };
    });
  }

  function rulesJson(r: AdmissionRules): RacerConfig['rules'] {
    return {
      maxActive: r.maxActive,
      maxPerSession: r.maxPerSession,
      maxHeavy: Number.isFinite(r.maxHeavy) ? r.maxHeavy : null,
      memoryBudget: Number.isFinite(r.memoryBudget) ? r.memoryBudget : null,
    };
  }

  function racer(path: string, name: string, jobs: RacerJob[], rules: AdmissionRules, extra: Partial<RacerConfig> = {}): RunningRacer {
    const r = startRacer({ db: path, name, mode: 'hold', jobs, sessions: SESSIONS, rules: rulesJson(rules), ...extra }, join(dir, `${name}-${seq}.json`));
    racers.push(r);
    return r;
  }

  async function race(rs: RunningRacer[], t?: TestContext): Promise<RacerResult[]> {
    await within(releaseTogether(rs), RACE_MS, 'racers ready');
    const results = await within(Promise.all(rs.map((r) => r.result)), RACE_MS, 'racers to finish');
    for (const r of results) t?.diagnostic(`${r.name}: ${r.attempts} attempts, ${r.admitted} admitted, ${r.elapsed_ms.toFixed(0)} ms, ${JSON.stringify(r.refused_by_code)}`);
    return results;
  }

  function assertOnlyRefusals(results: RacerResult[]): void {
    for (const r of results) {
      const odd = Object.keys(r.refused_by_code).filter((c) => !REFUSALS.has(c));
      assert.deepEqual(odd, [], `racer ${r.name} saw unexpected outcomes: ${JSON.stringify(r.refused_by_code)} ${JSON.stringify(r.unexpected_messages)}`);
      const refused = Object.values(r.refused_by_code).reduce((s, n) => s + n, 0);
      assert.equal(r.admitted + refused, r.attempts, `racer ${r.name}: every attempt is counted once`);
    }
  }

  const states = (db: JobDatabase) => db.prepare('SELECT id, state, instance_id, session_id, workdir FROM jobs').all() as Array<Pick<JobRow, 'id' | 'state' | 'instance_id' | 'session_id' | 'workdir'>>;

  for (const [orderA, orderB] of [
    ['given', 'given'],
    ['given', 'reverse'],
    ['shuffle', 'shuffle'],
  ] as const) {
    test(`hold: 200 starts raced by two processes (${orderA}/${orderB}) admit at most the rules allow, each job once`, async (t) => {
      const { path, db } = freshDb();
      const jobs = prepareAll(
        db,
        Array.from({ length: 200 }, (_, i) => ({ workdir: NESTED_WORKDIRS[i % NESTED_WORKDIRS.length]! })),
      );
      const rs = [racer(path, 'racer-a', jobs, RULES, { order: orderA, seed: 11 }), racer(path, 'racer-b', jobs, RULES, { order: orderB, seed: 29 })];
      const results = await race(rs, t);
      assertOnlyRefusals(results);

      // Nothing is ever finished in hold mode, so the active set only grew: the final rows are the
      // worst moment of the race.
      assert.deepEqual(invariantViolations(db, RULES, nests), []);
      const rows = states(db);
      const starting = rows.filter((r) => r.state === 'starting');
      assert.deepEqual(rows.filter((r) => r.state !== 'starting' && r.state !== 'prepared'), [], 'every job is prepared or starting');
      assert.ok(starting.length >= 1 && starting.length <= RULES.maxActive, `${starting.length} starting`);
      for (const s of SESSIONS) assert.ok(starting.filter((r) => r.session_id === s).length <= RULES.maxPerSession, `session ${s}`);
      for (let i = 0; i < starting.length; i++) {
        for (let j = i + 1; j < starting.length; j++) assert.ok(!nests(starting[i]!.workdir, starting[j]!.workdir), `${starting[i]!.workdir} vs ${starting[j]!.workdir}`);
      }
      // No double admission: what the racers counted is exactly what the rows say, per racer.
      assert.equal(results[0]!.admitted + results[1]!.admitted, starting.length);
      for (const r of results) assert.equal(starting.filter((row) => row.instance_id === r.name).length, r.admitted, `rows admitted by ${r.name}`);
      // Both really raced: each tried every job.
      for (const r of results) assert.equal(r.attempts, 200);

      // A refused job is still startable once capacity frees.
      const now = Date.now();
      for (const s of starting) assert.ok(finishJob(db, s.id, { state: 'succeeded', exitCode: 0, signal: null, reason: 'exited' }, now));
      const refused = jobs.find((j) => getJob(db, j.id)!.state === 'prepared')!;
      const again = admitJob(db, { id: refused.id, token: refused.token, sessionId: 's0', instance: { id: 'parent', pid: process.pid, start: 'x' }, unit: 'u' }, RULES, now);
      assert.equal(again.admitted, true);
    });
  }

  test('hold: with one heavy slot and a memory budget, racing processes never exceed either', async (t) => {
    const { path, db } = freshDb();
    const rules: AdmissionRules = { maxActive: 4, maxPerSession: 2, maxHeavy: 1, memoryBudget: 3 * GiB };
    const memories = [GiB, 2 * GiB, GiB / 2, GiB, (3 * GiB) / 2];
    // Disjoint workdirs and many sessions, so heavy slots and memory are what binds.
    const jobs = prepareAll(
      db,
      Array.from({ length: 200 }, (_, i) => ({ workdir: `/h/job-${i}`, heavy: i % 2 === 0, memory: memories[i % memories.length]! })),
    );
    installInvariantTrigger(db, rules);
    const sessions = Array.from({ length: 12 }, (_, i) => `hs${i}`);
    const rs = [
      racer(path, 'racer-a', jobs, rules, { order: 'shuffle', seed: 3, sessions }),
      racer(path, 'racer-b', jobs, rules, { order: 'shuffle', seed: 4, sessions }),
    ];
    const results = await race(rs, t);
    assertOnlyRefusals(results);
    assert.deepEqual(invariantViolations(db, rules, nests), []);
    const active = db.prepare(`SELECT heavy, memory_reservation FROM jobs WHERE state = 'starting'`).all() as Array<{ heavy: number; memory_reservation: number }>;
    assert.ok(active.length >= 1);
    assert.ok(active.filter((a) => a.heavy).length <= 1, 'at most one heavy job active');
    assert.ok(active.reduce((s, a) => s + a.memory_reservation, 0) <= rules.memoryBudget, 'reservations within the budget');
    assert.equal(results[0]!.admitted + results[1]!.admitted, active.length);
    // The heavy and memory rules were actually exercised, not just the global quota.
    const seen = (code: string) => results.reduce((s, r) => s + (r.refused_by_code[code] ?? 0), 0);
    assert.ok(seen(ErrorCode.JOB_HEAVY_BUSY) + seen(ErrorCode.JOB_MEMORY_UNAVAILABLE) > 0, JSON.stringify(results.map((r) => r.refused_by_code)));
  });

  test('churn: admissions and finishes racing in two processes never break a rule at any moment', async (t) => {
    // First, the test-only trigger bites: each rule broken by hand is aborted.
    {
      const { db } = freshDb();
      installInvariantTrigger(db, RULES);
      const probe = prepareAll(db, ['/t/1', '/t/2', '/t/3', '/t/4', '/t/5', '/t/1/x', '/t/11'].map((workdir) => ({ workdir })));
      const start = db.prepare(`UPDATE jobs SET state = 'starting', session_id = ? WHERE id = ?`);
      start.run('p0', probe[0]!.id);
      start.run('p0', probe[1]!.id);
      assert.throws(() => start.run('p0', probe[2]!.id), /INVARIANT: a session has more than 2 active/);
      assert.throws(() => start.run('p1', probe[5]!.id), /INVARIANT: nested or identical active workdirs/);
      start.run('p1', probe[6]!.id); // /t/11 is not inside /t/1
      start.run('p1', probe[2]!.id);
      assert.throws(() => start.run('p2', probe[4]!.id), /INVARIANT: more than 4 active/);
    }

    const { path, db } = freshDb();
    const jobs = prepareAll(
      db,
      Array.from({ length: 1200 }, (_, i) => ({ workdir: NESTED_WORKDIRS[i % NESTED_WORKDIRS.length]! })),
    );
    installInvariantTrigger(db, RULES);
    // Each racer keeps each admitted job for 2 ms and up to 3 at once: together they want 6 active
    // against a limit of 4, so the quota, session and workspace rules bind all the time.
    const churn: Partial<RacerConfig> = { mode: 'churn', holdCount: 3, holdMs: 2, durationMs: 1500 };
    const rs = [racer(path, 'racer-a', jobs, RULES, { ...churn, order: 'given', seed: 5 }), racer(path, 'racer-b', jobs, RULES, { ...churn, order: 'shuffle', seed: 6 })];
    const results = await race(rs, t);
    assertOnlyRefusals(results); // a trigger abort would show up here as SQLITE_CONSTRAINT_TRIGGER
    const admitted = results[0]!.admitted + results[1]!.admitted;
    assert.ok(admitted > 0, 'some admissions happened');
    const refusedByRule = results.reduce((s, r) => s + (r.refused_by_code[ErrorCode.JOB_QUOTA_EXCEEDED] ?? 0) + (r.refused_by_code[ErrorCode.JOB_WORKSPACE_BUSY] ?? 0), 0);
    assert.ok(refusedByRule > 0, `the rules were under pressure: ${JSON.stringify(results.map((r) => r.refused_by_code))}`);
    // Each admitted job was finished by its racer; none twice, none lost.
    const counts = Object.fromEntries((db.prepare('SELECT state, count(*) AS n FROM jobs GROUP BY state').all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n]));
    assert.equal(counts.succeeded ?? 0, admitted, JSON.stringify(counts));
    assert.equal((counts.succeeded ?? 0) + (counts.prepared ?? 0), jobs.length, JSON.stringify(counts));
    assert.equal(results[0]!.finished + results[1]!.finished, admitted);
    for (const r of results) {
      assert.equal((db.prepare(`SELECT count(*) AS n FROM jobs WHERE instance_id = ? AND state = 'succeeded'`).get(r.name) as { n: number }).n, r.admitted);
    }
    assert.deepEqual(invariantViolations(db, RULES, nests), []);
  });

  test('an admission by one process is visible to the next admission in another at once', async () => {
    const { path, db } = freshDb();
    const [a, b, c] = prepareAll(db, [{ workdir: '/v/x' }, { workdir: '/v/x/y' }, { workdir: '/v/z' }]) as [RacerJob, RacerJob, RacerJob];
    const parent = { id: 'parent', pid: process.pid, start: 'x' };

    // Process 1 admits A; the parent's already-open connection sees it on its very next read.
    const [r1] = await race([racer(path, 'racer-1', [a], RULES, { sessions: ['v1'] })]);
    assert.equal(r1!.admitted, 1);
    const rowA = getJob(db, a.id)!;
    assert.equal(rowA.state, 'starting');
    assert.equal(rowA.instance_id, 'racer-1');
    assert.equal(rowA.session_id, 'v1');
    assert.throws(
      () => admitJob(db, { id: b.id, token: b.token, sessionId: 'v2', instance: parent, unit: 'u' }, RULES, Date.now()),
      (e) => isGatewayError(e) && e.code === ErrorCode.JOB_WORKSPACE_BUSY,
    );

    // Process 2 sees A started (never relaunched) and B's workspace busy.
    const [r2] = await race([racer(path, 'racer-2', [a, b], RULES, { sessions: ['v1'] })]);
    assert.deepEqual(r2!.refused_by_code, { ALREADY_STARTED: 1, [ErrorCode.JOB_WORKSPACE_BUSY]: 1 });
    assert.equal(getJob(db, a.id)!.instance_id, 'racer-1');

    // The parent admits C and finishes A; process 3 sees both at once.
    assert.equal(admitJob(db, { id: c.id, token: c.token, sessionId: 'v1', instance: parent, unit: 'u' }, RULES, Date.now()).admitted, true);
    assert.ok(finishJob(db, a.id, { state: 'succeeded', exitCode: 0, signal: null, reason: 'exited' }, Date.now()));
    const [r3] = await race([racer(path, 'racer-3', [c, b, a], RULES, { sessions: ['v1'] })]);
    assert.equal(r3!.admitted, 1, JSON.stringify(r3));
    assert.deepEqual(r3!.refused_by_code, { ALREADY_STARTED: 2 });
    assert.equal(getJob(db, b.id)!.instance_id, 'racer-3');
    assert.equal(getJob(db, c.id)!.instance_id, 'parent');
  });
});
