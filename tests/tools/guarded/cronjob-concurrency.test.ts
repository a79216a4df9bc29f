import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { FIXTURE_JOB_ID, callContext, directCronjob, hermesCron, homeWithCron, jobsPath, readJobsFile, sha256 } from '../../fixtures/cron-home.js';
import { startCronGateway } from '../../fixtures/cron-gateway.js';

// The gateway and a running Hermes share cron/jobs.json. The Hermes side is Hermes' own cron.jobs
// in the pinned venv (tests/hermes/drivers/cron_jobs.py): it takes cron/.jobs.lock with
// `_jobs_lock()` and adds jobs with create_job while the gateway performs many mutations at the
// same time (each made by Hermes' own cron code in a Hermes call worker, cronjobConcurrentCalls
// at a time). Every write from both sides must survive, and jobs.json must parse at every moment.

/** Hermes writing `rounds` jobs, each round holding its lock `holdMs` across load -> save. */
function startWriter(home: string, rounds: number, holdMs: number, pauseMs = 2) {
  return hermesCron(home, { writer: { rounds, hold_ms: holdMs, pause_ms: pauseMs } });
}

/** Hermes holding its jobs lock for `seconds`; resolves once it holds it. */
async function holdLock(home: string, seconds: number) {
  const holder = hermesCron(home, { hold_lock: { seconds } });
  await holder.line(/"held"/);
  return holder;
}

/** Reads and parses jobs.json every few milliseconds until stopped; counts what it saw. */
function startObserver(path: string) {
  let stopped = false;
  const stats = { reads: 0, failures: [] as string[], maxJobs: 0 };
  const loop = (async () => {
    while (!stopped) {
      try {
        const data = JSON.parse(readFileSync(path, 'utf8')) as { jobs: unknown[] };
        if (!Array.isArray(data.jobs)) throw new Error('jobs is not a list');
        stats.maxJobs = Math.max(stats.maxJobs, data.jobs.length);
      } catch (e) {
        stats.failures.push((e as Error).message);
      }
      stats.reads++;
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    stats,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

describe('cronjob under a concurrently writing Hermes', () => {
  let gw: TestGateway;
  let home: string;
  before(async () => {
    home = homeWithCron();
    gw = await startCronGateway(home, 'on');
  });
  after(async () => {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('no write from either side is lost and jobs.json is valid JSON at every observation', async () => {
    const observer = startObserver(jobsPath(home));
    // Hermes' side: 40 rounds, each holding the lock for 5 ms across its load -> save.
    const writer = startWriter(home, 40, 5, 3);
    const clients = await Promise.all([connect(gw.mcpUrl, 'modern'), connect(gw.mcpUrl, 'modern'), connect(gw.mcpUrl, 'legacy')]);
    const call = (i: number, args: Record<string, unknown>) => viaBridge(clients[i % clients.length]!, 'cronjob', { confirm: true, ...args });

    // The gateway's side, all in flight together: 24 creates, then pause half of them, update a
    // few and run the fixture job, while Hermes keeps writing.
    const created = await Promise.all(Array.from({ length: 24 }, (_, i) => call(i, { action: 'create', prompt: `Gateway job ${i}: count walruses`, schedule: i % 2 ? 'every 15m' : '0 */6 * * *', name: `gw-${i}` })));
    for (const r of created) assert.equal(r.isError, false, JSON.stringify(r.data));
    const ids = created.map((r) => r.data.job_id as string);
    const second = await Promise.all([
      ...ids.filter((_, i) => i % 2 === 0).map((id, i) => call(i, { action: 'pause', job_id: id, reason: `batch ${i}` })),
      ...ids.filter((_, i) => i % 3 === 1).map((id, i) => call(i, { action: 'update', job_id: id, deliver: 'telegram:-1001:7' })),
      call(0, { action: 'run', job_id: FIXTURE_JOB_ID }),
      ...Array.from({ length: 6 }, (_, i) => call(i, { action: 'create', prompt: `Late gateway job ${i}`, schedule: `every ${10 + i}m`, name: `gw-late-${i}` })),
    ]);
    for (const r of second) assert.equal(r.isError, false, JSON.stringify(r.data));
    const lateIds = second.slice(-6).map((r) => r.data.job_id as string);

    const hermes = await writer.done();
    await observer.stop();
    for (const c of clients) await c.close();
    assert.equal(hermes.code, 0, hermes.stderr);
    assert.equal(hermes.written.length, 40);

    // Every observation parsed.
    assert.deepEqual(observer.stats.failures, [], 'jobs.json was valid JSON at every observation');
    assert.ok(observer.stats.reads > 50, `observed ${observer.stats.reads} times`);

    const file = readJobsFile(home);
    const byId = new Map(file.jobs.map((j) => [j.id as string, j]));
    assert.equal(file.jobs.length, 1 + 24 + 6 + 40, 'fixture + gateway + Hermes jobs, none lost, none duplicated');
    assert.equal(byId.size, file.jobs.length);
    for (const id of hermes.written) assert.ok(byId.has(id), `Hermes' job ${id} survived`);
    ids.forEach((id, i) => {
      const job = byId.get(id);
      assert.ok(job, `gateway job ${id} survived`);
      assert.equal(job!.name, `gw-${i}`);
      assert.equal(job!.state, i % 2 === 0 ? 'paused' : 'scheduled', `pause of ${id} survived`);
      assert.equal(job!.deliver, i % 3 === 1 ? 'telegram:-1001:7' : 'local', `update of ${id} survived`);
    });
    for (const id of lateIds) assert.ok(byId.has(id));
    const fixture = byId.get(FIXTURE_JOB_ID)!;
    assert.ok(Date.parse(fixture.next_run_at as string) < Date.now(), 'the run (next_run_at = now) survived');
    assert.deepEqual(readdirSync(join(home, 'cron')).filter((f) => f.endsWith('.tmp')), []);
  });
});

describe('the lock itself', () => {
  test("while Hermes holds cron/.jobs.lock (its own _jobs_lock), a mutation waits; past cronjobLockWaitSeconds it is CRONJOB_LOCK_UNAVAILABLE and nothing is written (where Hermes itself would go on without the lock)", async () => {
    const home = homeWithCron();
    try {
      const holder = await holdLock(home, 4);
      const before = sha256(jobsPath(home));
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on', HERMES_MCP_CRONJOB_LOCK_WAIT_SECONDS: '1' });
      const t0 = performance.now();
      await assert.rejects(tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, confirm: true }, callContext()), (e: { code?: string; message?: string }) => {
        assert.equal(e.code, 'CRONJOB_LOCK_UNAVAILABLE', e.message);
        assert.match(e.message!, /not free within 1 s.*nothing was written/);
        return true;
      });
      assert.ok(performance.now() - t0 >= 900, 'it waited for the lock');
      assert.equal(sha256(jobsPath(home)), before);

      // Once Hermes lets go, the same call goes through (it waits rather than failing).
      const { tool: patient } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on', HERMES_MCP_CRONJOB_LOCK_WAIT_SECONDS: '30' });
      const out = await patient.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, confirm: true }, callContext());
      assert.equal((out.structured!.job as Record<string, unknown>).state, 'paused');
      assert.equal((await holder.done()).code, 0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('a call cancelled while waiting for the lock is CANCELLED and writes nothing', async () => {
    const home = homeWithCron();
    try {
      const holder = await holdLock(home, 4);
      const before = sha256(jobsPath(home));
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on' });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 2000);
      await assert.rejects(tool.handler({ action: 'run', job_id: FIXTURE_JOB_ID, confirm: true }, callContext(controller.signal)), { code: 'CANCELLED' });
      assert.equal((await holder.done()).code, 0);
      assert.equal(sha256(jobsPath(home)), before);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
