import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { GatewayError } from '../../../shared/errors.js';
import { packageRoot } from '../../../shared/package-root.js';
import { descendantsOf } from '../../../shared/proc.js';
import type { HermesCallProtocol } from '../../../shared/worker-protocol/hermes-call.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import type { WorkerProcess } from '../../../supervisor/platform/spawning/worker-process.js';
import type { SpawnOptions, WorkerEntry, WorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { assertBoundedFailure, countersSettle, timed } from '../../faults/faults.js';
import { FIXTURE_JOB_ID, callContext, cronCaller, directCronjob, hermesCron, homeWithCron, jobsPath, readJobsFile, sha256 } from '../../fixtures/cron-home.js';
import { startCronGateway } from '../../fixtures/cron-gateway.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { hermes, hermesEnv, runDriverSync } from '../../helpers/hermes.js';
import { cmdline, parentOf, processesWithHome } from '../../helpers/procfs.js';
import { waitFor } from '../../helpers/wait.js';

// cronjob's calls of Hermes' own cron code, against the pinned real Hermes: the worker's module
// `cron` (workers/hermes-call/cron.py) never stands in for Hermes' `cron` package, and what a cron
// caller gets when the Hermes call worker dies or hangs (the fault matrix's promises for this
// worker: a bounded error naming it, nothing written, nothing left running, in-flight counters back
// to zero, and the next call works). The hang is a real one: the worker waits for Hermes' own
// cron/.jobs.lock, which a running Hermes holds past the call's budget; the hang and the crash
// both happen while the worker waits for that lock, before its commit (the 'committing' /
// 'proceed' handshake right before Hermes loads and changes the jobs), so the answer says nothing
// was written. Past the commit a client's cancellation no longer stops the change and a timeout
// or death answers `outcome: 'unknown'`: real Hermes cannot be made to hang or die there on
// purpose, so those tests act on the real worker from the test at the moment its 'committing'
// frame arrives (abort, SIGKILL, SIGSTOP), before or after the gateway's own answer to it. And the
// worker gets Hermes' own non-secret settings (its timezone, its managed scope), so a job the
// gateway creates is the job Hermes itself would create.

const WORKER_DIR = join(packageRoot(), 'workers', 'hermes-call');

/** Holds Hermes' jobs lock (Hermes' own _jobs_lock) for `seconds`; resolves once it holds it. */
async function holdLock(home: string, seconds: number) {
  const holder = hermesCron(home, { hold_lock: { seconds } });
  await holder.line(/"held"/);
  return holder;
}

/** The Hermes call workers running under this process (the interpreters running run.py, below their launchers). */
function hermesCallWorkers(): number[] {
  const all = descendantsOf(process.pid).filter((pid) => cmdline(pid).includes('hermes-call/run.py'));
  const leaves = all.filter((pid) => all.includes(parentOf(pid)));
  return leaves.length > 0 ? leaves : all;
}

/** The files `pid` has open. */
function openFiles(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}


describe("the worker's cron module and Hermes' cron package", () => {
  test("a Python that puts workers/hermes-call first on sys.path (as `python run.py` would) imports the worker's cron.py as `cron`: the hazard is real", () => {
    const r = spawnSync(hermes().python, ['-c', `import sys; sys.path.insert(0, ${JSON.stringify(WORKER_DIR)}); import cron; print(cron.__file__)`], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), join(WORKER_DIR, 'cron.py'));
  });

  test("through the Hermes call worker, `from cron import jobs` is Hermes' own package: the change is Hermes' (jobs.json written by its cron.jobs)", async () => {
    const home = homeWithCron();
    try {
      const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.gateway-state'), HERMES_AGENT_PYTHON: hermes().python });
      const caller = await cronCaller(config);
      const value = (await caller.call('cron', 'pause', { args: { job_id: FIXTURE_JOB_ID, reason: 'shadow check' }, lock_wait_seconds: 10 }, { timeoutMs: 60_000 })) as { answer?: { success?: boolean } };
      assert.equal(value.answer?.success, true, JSON.stringify(value));
      const job = readJobsFile(home).jobs.find((j) => j.id === FIXTURE_JOB_ID)!;
      assert.deepEqual([job.state, job.paused_reason], ['paused', 'shadow check']);
      assert.deepEqual(processesWithHome(home), [], 'the worker is gone');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('a cron caller when the Hermes call worker dies or hangs', () => {
  let gw: TestGateway;
  let home: string;
  let client: Client;
  const pause = (reason: string) => viaBridge(client, 'cronjob', { action: 'pause', job_id: FIXTURE_JOB_ID, reason, confirm: true });

  before(async () => {
    home = homeWithCron();
    // A short call budget, and a lock wait longer than it: a held lock is a hang of the call.
    gw = await startCronGateway(home, 'on', { HERMES_MCP_CRONJOB_CALL_TIMEOUT_SECONDS: '4', HERMES_MCP_CRONJOB_LOCK_WAIT_SECONDS: '60' });
    client = await connect(gw.mcpUrl, 'modern');
    // The worker answers before any fault (a first interpreter start is not the fault).
    await waitFor(async () => !(await pause('warm-up')).isError, 60_000, 'a first cron call to succeed');
  });
  after(async () => {
    await client.close();
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('hangs (Hermes holds its lock past the budget): HERMES_CALL_TIMEOUT naming Hermes\' cron call, saying nothing was written (no outcome: it never committed), the worker gone, counters back to 0, the next call works', async () => {
    const holder = await holdLock(home, 12);
    const beforeBytes = sha256(jobsPath(home));
    const outcome = await timed(() => pause('hang'));
    assertBoundedFailure('Hermes call worker × hang', outcome, { code: 'HERMES_CALL_TIMEOUT', names: /Hermes' cron pause/, withinMs: 9000 });
    assert.equal(outcome.data.success, false);
    // Stopped while it waited for the lock, before its commit: nothing can have been written, and it says so.
    assert.equal(outcome.data.outcome, undefined, JSON.stringify(outcome.data));
    assert.match(String(outcome.data.message), /stopped before it began the change: nothing was written/);
    assert.doesNotMatch(String(outcome.data.message), /may or may not|Run cronjob list/);
    assert.equal(sha256(jobsPath(home)), beforeBytes, 'nothing written');
    assert.deepEqual(hermesCallWorkers(), [], 'no Hermes call worker left');
    await countersSettle(gw.url);
    assert.equal((await holder.done()).code, 0);
    const next = await pause('after the hang');
    assert.equal(next.isError, false, JSON.stringify(next.data));
    assert.equal(readJobsFile(home).jobs.find((j) => j.id === FIXTURE_JOB_ID)!.paused_reason, 'after the hang');
    await countersSettle(gw.url);
  });

  test('dies mid-call (SIGKILL while it waits for the lock): HERMES_CALL_FAILED naming it, saying nothing was written (no outcome: it never committed), nothing left running, counters back to 0, the next call works', async () => {
    const holder = await holdLock(home, 12);
    const beforeBytes = sha256(jobsPath(home));
    const outcome = timed(() => pause('killed'));
    // Mid-call: the worker is inside Hermes' _jobs_lock, holding cron/.jobs.lock open while it waits.
    const lockFile = join(home, 'cron', '.jobs.lock');
    const victims = await waitFor(() => {
      const waiting = hermesCallWorkers().filter((pid) => openFiles(pid).includes(lockFile));
      return waiting.length > 0 ? waiting : undefined;
    }, 20_000, "the Hermes call worker to wait for Hermes' lock");
    for (const pid of victims) process.kill(pid, 'SIGKILL');
    const result = await outcome;
    assertBoundedFailure('Hermes call worker × crash mid-call', result, { code: 'HERMES_CALL_FAILED', names: /Hermes' cron pause/, withinMs: 9000 });
    assert.equal(result.data.outcome, undefined, JSON.stringify(result.data));
    assert.match(String(result.data.message), /ended without an answer.*before it began the change: nothing was written/s);
    assert.doesNotMatch(String(result.data.message), /may or may not|Run cronjob list/);
    assert.equal(sha256(jobsPath(home)), beforeBytes, 'nothing written');
    await waitFor(() => hermesCallWorkers().length === 0, 5000, 'no Hermes call worker left');
    await countersSettle(gw.url);
    const holderDone = await holder.done();
    assert.equal(holderDone.code, 0);
    // Nothing the call started is left: no process of the call (the worker's launcher included)
    // runs under the gateway; its other workers (Hermes' tool server among them) are not the call's.
    assert.deepEqual(descendantsOf(process.pid).filter((pid) => cmdline(pid).includes('hermes-call')), [], 'nothing the call started is left');
    const next = await pause('after the crash');
    assert.equal(next.isError, false, JSON.stringify(next.data));
    await countersSettle(gw.url);
  });
});

/** The worker that has Hermes' cron/.jobs.lock open while it waits for it (a call handed over and inside Hermes' _jobs_lock). */
function waitingWorker(home: string): Promise<number[]> {
  const lockFile = join(home, 'cron', '.jobs.lock');
  return waitFor(() => {
    const waiting = hermesCallWorkers().filter((pid) => openFiles(pid).includes(lockFile));
    return waiting.length > 0 ? waiting : undefined;
  }, 20_000, "the Hermes call worker to wait for Hermes' lock");
}

/**
 * Watches the Hermes call workers a runtime spawns: `atCommit` runs when a worker says
 * 'committing', ahead of the gateway's own handler of that frame (registered first, so it runs
 * first); `sent` records every message the gateway sends a worker other than the call itself.
 */
function watchCommits(atCommit: (worker: WorkerProcess<HermesCallProtocol>) => void) {
  const sent: string[] = [];
  let commits = 0;
  const watch = (runtime: WorkerRuntime) => {
    const spawn = runtime.spawnWorker.bind(runtime);
    runtime.spawnWorker = ((entry: WorkerEntry, options?: SpawnOptions) => {
      const worker = spawn(entry, options);
      if (entry === 'hermes-call') {
        const w = worker as WorkerProcess<HermesCallProtocol>;
        const send = w.send.bind(w);
        w.send = (message) => {
          sent.push(message.type);
          send(message);
        };
        w.onFrame((message) => {
          if (message.type !== 'committing') return;
          commits++;
          atCommit(w);
        });
      }
      return worker;
    }) as WorkerRuntime['spawnWorker'];
  };
  return { watch, sent, commits: () => commits };
}

/** The GatewayError `p` rejects with. */
async function rejection(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof GatewayError, String(e));
    return e;
  }
  assert.fail('the call did not fail');
}

/** Sends `signal` to the Hermes call worker (the interpreter running run.py) under this process. */
function signalWorker(signal: NodeJS.Signals): void {
  const workers = hermesCallWorkers();
  assert.ok(workers.length > 0, 'a Hermes call worker to signal');
  for (const pid of workers) process.kill(pid, signal);
}

describe("a cron mutation's commit: nothing is written before it, and the change runs to its answer after it", () => {
  test("cancelled while it waits for Hermes' lock (before its commit): CANCELLED, saying nothing was written, the worker gone", async () => {
    const home = homeWithCron();
    try {
      const seen = watchCommits(() => {});
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on' }, seen.watch);
      const holder = await holdLock(home, 3);
      const before = sha256(jobsPath(home));
      const abort = new AbortController();
      const call = tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, reason: 'cancelled while waiting', confirm: true }, callContext(abort.signal));
      await waitingWorker(home);
      abort.abort();
      const error = await rejection(call);
      assert.equal(error.code, 'CANCELLED');
      assert.equal(error.details?.outcome, undefined);
      assert.match(error.message, /cancelled before it began the change: nothing was written/);
      assert.equal((await holder.done()).code, 0);
      assert.equal(sha256(jobsPath(home)), before, 'nothing written');
      assert.deepEqual([seen.commits(), seen.sent], [0, []], 'the worker never reached its commit');
      assert.deepEqual(processesWithHome(home), [], 'the worker is gone');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("an abort in the very turn the worker says 'committing', ahead of the gateway's answer: no 'proceed', CANCELLED, nothing written", async () => {
    const home = homeWithCron();
    try {
      const abort = new AbortController();
      const seen = watchCommits(() => abort.abort());
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on' }, seen.watch);
      const before = sha256(jobsPath(home));
      const error = await rejection(tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, reason: 'aborted at the commit', confirm: true }, callContext(abort.signal)));
      assert.equal(error.code, 'CANCELLED', error.message);
      assert.match(error.message, /nothing was written/);
      assert.deepEqual([seen.commits(), seen.sent], [1, []], "the worker reached its commit and was not let past it");
      assert.equal(sha256(jobsPath(home)), before, 'nothing written');
      assert.deepEqual(processesWithHome(home), [], 'the worker is gone');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("an abort right after the gateway let the worker proceed does not stop it: Hermes' change is made and answered", async () => {
    const home = homeWithCron();
    try {
      const abort = new AbortController();
      // A microtask runs once every handler of the frame has: after the gateway's 'proceed'.
      const seen = watchCommits(() => queueMicrotask(() => abort.abort()));
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on' }, seen.watch);
      const out = await tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, reason: 'cancelled after the commit', confirm: true }, callContext(abort.signal));
      assert.equal(abort.signal.aborted, true);
      assert.deepEqual([seen.commits(), seen.sent], [1, ['proceed']]);
      assert.equal((out.structured!.job as Record<string, unknown>).state, 'paused', JSON.stringify(out.structured));
      assert.equal(readJobsFile(home).jobs.find((j) => j.id === FIXTURE_JOB_ID)!.paused_reason, 'cancelled after the commit');
      assert.deepEqual(processesWithHome(home), [], 'the worker is gone');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('the worker killed right after its commit: HERMES_CALL_FAILED with outcome unknown, telling the caller to list before retrying', async () => {
    const home = homeWithCron();
    try {
      const seen = watchCommits(() => queueMicrotask(() => signalWorker('SIGKILL')));
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on' }, seen.watch);
      const error = await rejection(tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, reason: 'killed after the commit', confirm: true }, callContext()));
      assert.equal(error.code, 'HERMES_CALL_FAILED', error.message);
      assert.deepEqual([seen.commits(), seen.sent], [1, ['proceed']]);
      // Whether Hermes got to save before the kill is not knowable to the gateway: it says so.
      assert.equal(error.details?.outcome, 'unknown', JSON.stringify(error.details));
      assert.match(error.message, /may or may not have been made.*Run cronjob list before retrying cronjob pause/s);
      assert.deepEqual(processesWithHome(home), [], 'the worker is gone');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('the worker stopped right after its commit outlives its budget: HERMES_CALL_TIMEOUT with outcome unknown, the worker gone', async () => {
    const home = homeWithCron();
    try {
      const seen = watchCommits(() => queueMicrotask(() => signalWorker('SIGSTOP')));
      // The budget covers the interpreter's start and Hermes' imports before the commit.
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on', HERMES_MCP_CRONJOB_CALL_TIMEOUT_SECONDS: '20' }, seen.watch);
      const error = await rejection(tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, reason: 'stopped after the commit', confirm: true }, callContext()));
      assert.equal(error.code, 'HERMES_CALL_TIMEOUT', error.message);
      assert.deepEqual([seen.commits(), seen.sent], [1, ['proceed']]);
      assert.equal(error.details?.outcome, 'unknown', JSON.stringify(error.details));
      assert.match(error.message, /did not answer within 20 s.*may or may not have been made.*Run cronjob list before retrying cronjob pause/s);
      await waitFor(() => processesWithHome(home).length === 0, 5000, 'the stopped worker to be gone');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("the worker answered with a 'proceed' for another call: it ends before it touches anything (run.py's side of the handshake)", async () => {
    const home = homeWithCron();
    try {
      // Sent ahead of the gateway's own 'proceed', so it is the frame the worker reads first.
      const seen = watchCommits((worker) => worker.send({ type: 'proceed', id: 'another-call' }));
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on' }, seen.watch);
      const before = sha256(jobsPath(home));
      const error = await rejection(tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, reason: 'never written', confirm: true }, callContext()));
      assert.equal(error.code, 'HERMES_CALL_FAILED', error.message);
      assert.match(error.message, /the gateway did not let the change proceed; nothing was touched/);
      assert.equal(sha256(jobsPath(home)), before, 'nothing written');
      assert.deepEqual(processesWithHome(home), [], 'the worker is gone');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('cancelled before the worker was handed anything: CANCELLED, nothing written', async () => {
    const home = homeWithCron();
    try {
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on' });
      const before = sha256(jobsPath(home));
      const abort = new AbortController();
      abort.abort();
      await assert.rejects(tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, confirm: true }, callContext(abort.signal)), { code: 'CANCELLED' });
      assert.equal(sha256(jobsPath(home)), before);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("Hermes' own settings in the Hermes call worker", () => {
  test('its environment: the scrubbed one plus every non-secret HERMES_* setting and TZ; no key, token or gateway setting', async () => {
    const home = homeWithCron();
    const admin = join(home, 'admin-scope');
    mkdirSync(admin);
    try {
      const inherited = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HERMES_TIMEZONE: 'Asia/Tokyo',
        TZ: 'Asia/Tokyo',
        HERMES_CRON_TIMEOUT: '321',
        HERMES_MANAGED_DIR: admin,
        FIRECRAWL_API_KEY: 'fc-never-to-hermes-call',
        OPENAI_API_KEY: 'sk-never-to-hermes-call',
        HERMES_API_TOKEN: 'never-to-hermes-call',
      };
      const gatewayOwn = { HERMES_MCP_BRIDGE_SECRET_FOR_TEST: 'never-to-hermes-call' };
      const config = loadConfig({ ...inherited, HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.gateway-state'), HERMES_AGENT_PYTHON: hermes().python }, { inheritedEnvironment: { ...inherited, ...gatewayOwn } });
      const caller = await cronCaller(config);
      const holder = await holdLock(home, 2);
      const call = caller.call('cron', 'pause', { args: { job_id: FIXTURE_JOB_ID }, lock_wait_seconds: 10 }, { timeoutMs: 60_000 });
      const [pid] = await waitingWorker(home);
      const environ = Object.fromEntries(
        readFileSync(`/proc/${pid}/environ`, 'utf8')
          .split('\0')
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      );
      await call;
      assert.equal((await holder.done()).code, 0);
      assert.deepEqual([environ.HERMES_TIMEZONE, environ.TZ, environ.HERMES_CRON_TIMEOUT, environ.HERMES_MANAGED_DIR, environ.HERMES_HOME], ['Asia/Tokyo', 'Asia/Tokyo', '321', admin, home]);
      for (const name of ['FIRECRAWL_API_KEY', 'OPENAI_API_KEY', 'HERMES_API_TOKEN', 'HERMES_MCP_BRIDGE_SECRET_FOR_TEST']) assert.equal(environ[name], undefined, name);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  /** What Hermes' own cronjob() stores for `creates` in a copy of the cron home, with `env` over its environment. */
  function hermesOwn(creates: Array<Record<string, unknown>>, env: Record<string, string>): Array<Record<string, unknown>> {
    const own = homeWithCron();
    try {
      const r = runDriverSync<{ answers: Array<Record<string, unknown>>; jobs: Array<Record<string, unknown>> }>('cron_jobs.py', { tool: creates.map((c) => ({ action: 'create', ...c })) }, hermesEnv(own, { HOME: own, ...env }));
      for (const a of r.answers) assert.equal(a.success, true, JSON.stringify(a));
      return r.jobs;
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }

  const CREATES = [
    { prompt: 'Water the Tokyo office ferns', schedule: '2027-03-20T09:00:00', name: 'ferns-once' },
    { prompt: 'Water the Tokyo office ferns daily', schedule: '30 9 * * *', name: 'ferns-daily' },
  ];
  const nextRuns = (jobs: Array<Record<string, unknown>>) => Object.fromEntries(CREATES.map((c) => [c.name, jobs.find((j) => j.name === c.name)?.next_run_at]));

  test("HERMES_TIMEZONE in the gateway's environment: a create through the gateway stores the next_run_at Hermes' own cronjob() stores", async () => {
    const home = homeWithCron();
    const gw = await startTestGateway({ home, env: { HERMES_AGENT_PYTHON: hermes().python, HERMES_MCP_CRONJOB_MUTATIONS: 'on', HERMES_TIMEZONE: 'Asia/Tokyo' } });
    try {
      const client = await connect(gw.mcpUrl, 'modern');
      try {
        for (const c of CREATES) {
          const r = await viaBridge(client, 'cronjob', { action: 'create', ...c, confirm: true });
          assert.equal(r.isError, false, JSON.stringify(r.data));
        }
      } finally {
        await client.close();
      }
      const gateway = nextRuns(readJobsFile(home).jobs);
      const own = nextRuns(hermesOwn(CREATES, { HERMES_TIMEZONE: 'Asia/Tokyo' }));
      assert.deepEqual(gateway, own);
      assert.match(String(own['ferns-once']), /^2027-03-20T09:00:00\+09:00$/, 'Hermes reads the time in Tokyo');
    } finally {
      await gw.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("an administrator's managed scope (HERMES_MANAGED_DIR) that pins timezone: the gateway's create stores what Hermes' own stores under it", async () => {
    const home = homeWithCron();
    const admin = join(home, 'admin-scope');
    mkdirSync(admin);
    writeFileSync(join(admin, 'config.yaml'), 'timezone: Asia/Kolkata\n');
    try {
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on', HERMES_MANAGED_DIR: admin });
      for (const c of CREATES) await tool.handler({ action: 'create', ...c, confirm: true }, callContext());
      const own = nextRuns(hermesOwn(CREATES, { HERMES_MANAGED_DIR: admin }));
      assert.deepEqual(nextRuns(readJobsFile(home).jobs), own);
      assert.match(String(own['ferns-once']), /^2027-03-20T09:00:00\+05:30$/, "both pins' Hermes apply the managed timezone");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
