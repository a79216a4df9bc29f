import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { sizeBytes } from '../../../policy/resource-policy.js';
import { isGatewayError } from '../../../shared/errors.js';
import type { Limits } from '../../../shared/limits.js';
import { packageRoot } from '../../../shared/package-root.js';
import { descendantsOf } from '../../../shared/proc.js';
import { readResourcePolicy } from '../../../supervisor/platform/spawning/resource-policy.js';
import { detectIsolation } from '../../../supervisor/platform/spawning/isolation.js';
import { connect, makeHermesHome, openSession, sessionToken, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';
import { makeFakeSystemdRun, type FakeSystemdRun } from '../../helpers/fake-systemd-run.js';
import { HEAVY, LIGHT, resourcePolicy, SHORT, writeResourcePolicy } from '../../helpers/resource-policy.js';
import { tempDirs } from '../../helpers/temp.js';

// The host resource policy end to end: real gateways over real MCP, with a FAKE systemd-run first on
// PATH (it logs its argv as one JSON line and execs the command after `--`, like the real --scope;
// or fails like a host without a user manager). Never the real systemd-run: no test here starts or
// talks to a systemd manager, and even the cases that must not probe at all run with a tripwire
// fake first on PATH, so a stray probe is recorded instead of reaching /usr/bin/systemd-run.

const ENTRY = (name: string) => join(packageRoot(), 'dist', 'workers', `${name}.js`);
const PROBE = ['--user', '--scope', '--quiet', '--collect', 'true'];
const FAST: Partial<Limits> = { jobKillGraceSeconds: 1 };

const temp = tempDirs();
// Run in reverse: whatever a test started goes before the directories it used (removed last).
const cleanup: Array<() => Promise<void> | void> = [() => temp.removeAll()];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});
const tempDir = temp.make;

// ---- fixtures --------------------------------------------------------------------------------------

type Fake = FakeSystemdRun;
const makeFake = (options: { fail?: boolean } = {}): Fake => makeFakeSystemdRun(tempDir('hmcp-rp-fake-'), options);

const policy = resourcePolicy;
/** Writes a policy file (JSON value or raw text) with an explicit mode; returns its path. */
const writePolicy = (content: unknown, mode = 0o644): string => writeResourcePolicy(tempDir('hmcp-rp-policy-'), content, mode);

/**
 * A real gateway whose workers (and the startup probe) see `fake` first on PATH. nativeAdapter
 * reads PATH from process.env at creation and keeps the scrubbed copy for every later spawn, so
 * process.env.PATH is swapped only while the gateway is created.
 */
async function startWith(fake: Fake, env: Record<string, string>, options: { home?: string } = {}): Promise<TestGateway> {
  const saved = process.env.PATH;
  process.env.PATH = fake.path;
  try {
    return await startTestGateway({ env, limits: FAST, ...options });
  } finally {
    process.env.PATH = saved;
  }
}

async function readyz(gw: TestGateway): Promise<{ status: number; body: Record<string, unknown>; admission: Record<string, unknown> }> {
  const r = await fetch(`${gw.url}/readyz`);
  const body = (await r.json()) as Record<string, unknown>;
  return { status: r.status, body, admission: body.job_admission as Record<string, unknown> };
}

/** /readyz's status code on this host with no policy at all (components decide it, not the policy). */
let baseline: Promise<number> | undefined;
function baselineStatus(): Promise<number> {
  baseline ??= (async () => {
    const gw = await startWith(makeFake({ fail: true }), {});
    try {
      return (await readyz(gw)).status;
    } finally {
      await gw.close();
    }
  })();
  return baseline;
}

async function session(gw: TestGateway, clients: Client[]): Promise<{ client: Client; token: string }> {
  const client = await connect(gw.mcpUrl, 'modern');
  clients.push(client);
  const token = await sessionToken(client);
  assert.ok(token, 'session_open gave a token');
  return { client, token };
}

function workdir(gw: TestGateway, name: string): string {
  const dir = join(gw.home, 'work', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

type Job = {
  job_id: string;
  recovery_token: string;
};

async function prepare(client: Client, token: string, args: Record<string, unknown>): Promise<Job> {
  const r = await viaBridge(client, 'job_prepare', args, token);
  assert.equal(r.isError, false, JSON.stringify(r.data));
  return { job_id: r.data.job_id as string, recovery_token: r.data.recovery_token as string };
}

async function status(client: Client, job: Job, wait = 0): Promise<Record<string, unknown>> {
  return (await viaBridge(client, 'job_status', { ...job, wait_seconds: wait })).data;
}

async function waitFinal(client: Client, job: Job): Promise<Record<string, unknown>> {
  for (let i = 0; i < 20; i++) {
    const s = await status(client, job, 5);
    if (!['prepared', 'starting', 'running'].includes(s.state as string)) return s;
  }
  throw new Error(`job ${job.job_id} never finished`);
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const hexOf = (job: Job) => job.job_id.slice('job_'.length);

function jobRows(gw: TestGateway): Array<{ id: string; state: string; worker_pid: number | null }> {
  const db = new Database(join(gw.home, 'gateway-jobs.sqlite3'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT id, state, worker_pid FROM jobs').all() as Array<{ id: string; state: string; worker_pid: number | null }>;
  } finally {
    db.close();
  }
}

// ---- readResourcePolicy (unit) -------------------------------------------------------------------

describe('readResourcePolicy', () => {
  function refusal(path: string): string {
    try {
      readResourcePolicy(path);
    } catch (e) {
      assert.ok(isGatewayError(e), String(e));
      assert.equal(e.code, 'RESOURCE_POLICY_INVALID');
      return e.message;
    }
    assert.fail('the policy was accepted');
  }

  test('a valid 0644 policy owned by the gateway user is accepted; max_heavy defaults to 1', () => {
    const { max_heavy: _omitted, ...jobs } = policy().jobs;
    const parsed = readResourcePolicy(writePolicy({ ...policy(), jobs }));
    assert.deepEqual(parsed.profiles.heavy, HEAVY);
    assert.equal(parsed.jobs.max_heavy, 1);
  });

  test('owned by another user (not root): refused, naming the owner', { skip: process.getuid?.() !== 0 ? 'needs root to chown' : false }, () => {
    const path = writePolicy(policy());
    chownSync(path, 65534, 65534);
    assert.equal(refusal(path), `resource policy ${path}: owned by uid 65534, neither root nor the gateway's user`);
  });

  test('not a regular file: refused', () => {
    const dir = tempDir('hmcp-rp-dir-');
    assert.equal(refusal(dir), `resource policy ${dir}: not a regular file`);
  });

  test('a path that cannot be stat-ed for another reason than ENOENT: unreadable, with the code', () => {
    const file = writePolicy(policy());
    const below = join(file, 'policy.json');
    assert.equal(refusal(below), `resource policy ${below}: unreadable (ENOTDIR)`);
  });
});

// ---- no policy -----------------------------------------------------------------------------------

describe('HERMES_MCP_RESOURCE_POLICY unset', () => {
  let gw: TestGateway;
  const fake = makeFake({ fail: true }); // tripwire: must never run
  before(async () => {
    gw = await startWith(fake, {});
  });
  after(async () => {
    await gw.close();
  });

  test('development mode: job_admission accepting, resource_mode development, nothing probed', async () => {
    const r = await readyz(gw);
    assert.equal(r.status, await baselineStatus());
    assert.equal(r.admission.accepting, true, JSON.stringify(r.admission));
    assert.equal(r.admission.resource_mode, 'development');
    assert.equal(r.admission.enforcement, 'none');
    assert.match(r.admission.resource_reason as string, /HERMES_MCP_RESOURCE_POLICY unset: development mode/);
    assert.equal(r.admission.reasons, undefined);
    assert.deepEqual(fake.calls(), [], 'systemd-run is never run without a policy');
  });
});

// ---- a configured but broken policy fails closed -------------------------------------------------

const BROKEN: Array<{ name: string; path: () => string; reason: (path: string) => RegExp }> = [
  {
    name: 'missing file',
    path: () => join(tempDir('hmcp-rp-missing-'), 'absent.json'),
    reason: (p) => new RegExp(`^resource policy ${esc(p)}: missing$`),
  },
  {
    name: 'invalid JSON',
    path: () => writePolicy('{"version": 1, "profiles": '),
    reason: (p) => new RegExp(`^resource policy ${esc(p)}: invalid JSON: `),
  },
  {
    name: 'schema mismatch (cpu_quota "lots")',
    path: () => {
      const p = policy();
      return writePolicy({ ...p, profiles: { ...p.profiles, light: { ...LIGHT, cpu_quota: 'lots' } } });
    },
    reason: (p) => new RegExp(`^resource policy ${esc(p)}: does not match the schema .*profiles\\.light\\.cpu_quota: a CPU percentage`),
  },
  {
    name: 'schema mismatch (unknown key)',
    path: () => {
      const p = policy();
      return writePolicy({ ...p, jobs: { ...p.jobs, swap_max: '1G' } });
    },
    reason: (p) => new RegExp(`^resource policy ${esc(p)}: does not match the schema .*jobs\\.swap_max: Invalid key`),
  },
  {
    name: 'world-writable (0666)',
    path: () => writePolicy(policy(), 0o666),
    reason: (p) => new RegExp(`^resource policy ${esc(p)}: world-writable \\(mode 666\\)`),
  },
];

for (const broken of BROKEN) {
  describe(`broken policy, ${broken.name}: fails closed`, () => {
    let gw: TestGateway;
    let path: string;
    const clients: Client[] = [];
    const fake = makeFake({ fail: true }); // tripwire: a broken policy is never probed
    before(async () => {
      path = broken.path();
      gw = await startWith(fake, { HERMES_MCP_RESOURCE_POLICY: path });
    });
    after(async () => {
      for (const c of clients) await c.close();
      await gw.close();
    });

    test('the gateway starts; /readyz keeps the no-policy status code and reports admission failed with the cause', async () => {
      const r = await readyz(gw);
      assert.equal(r.status, await baselineStatus(), 'the control plane status is not affected by the policy');
      assert.equal(r.admission.accepting, false, JSON.stringify(r.admission));
      assert.equal(r.admission.resource_mode, 'failed');
      assert.equal(r.admission.enforcement, 'none');
      assert.equal(r.admission.policy, path);
      assert.match(r.admission.resource_reason as string, broken.reason(path));
      assert.deepEqual(r.admission.reasons, [r.admission.resource_reason]);
      assert.deepEqual(fake.calls(), [], 'not probed');
    });

    test('job_prepare is refused with RESOURCE_POLICY_INVALID and nothing is stored', async () => {
      const { client, token } = await session(gw, clients);
      const marker = join(gw.home, 'prepared-ran');
      const r = await viaBridge(client, 'job_prepare', { command: `touch ${marker}`, workdir: workdir(gw, 'p'), resource_profile: 'light' }, token);
      assert.equal(r.data.error, 'RESOURCE_POLICY_INVALID', JSON.stringify(r.data));
      assert.match(String(r.data.message), /^job_prepare refused: resource policy /);
      assert.match(String(r.data.message).replace(/^job_prepare refused: /, ''), broken.reason(path));
      assert.equal(r.data.job_id, undefined);
      assert.equal(r.data.recovery_token, undefined);
      assert.deepEqual(jobRows(gw), [], 'no job row');
      assert.equal(existsSync(marker), false);
    });

    test('execute_code is refused with RESOURCE_POLICY_INVALID before any worker runs it', async () => {
      const { client, token } = await session(gw, clients);
      const marker = join(gw.home, 'exec-ran');
      const r = await viaBridge(client, 'execute_code', { code: `open(${JSON.stringify(marker)}, "w").close()` }, token);
      assert.equal(r.data.error, 'RESOURCE_POLICY_INVALID', JSON.stringify(r.data));
      assert.match(String(r.data.message), /^execute_code refused: resource policy /);
      assert.equal(existsSync(marker), false);
    });

    test('direct terminal is refused with RESOURCE_ISOLATION_REQUIRES_JOB', async () => {
      const { client, token } = await session(gw, clients);
      const marker = join(gw.home, 'terminal-ran');
      const r = await viaBridge(client, 'terminal', { command: `touch ${marker}` }, token);
      assert.equal(r.data.error, 'RESOURCE_ISOLATION_REQUIRES_JOB', JSON.stringify(r.data));
      assert.equal(existsSync(marker), false);
    });
  });
}

// ---- enforced through (fake) systemd scopes ------------------------------------------------------

describe('policy enforced through systemd scopes (fake systemd-run)', () => {
  let gw: TestGateway;
  let path: string;
  const clients: Client[] = [];
  const fake = makeFake();
  const prefix = detectIsolation().prefix; // the same host probe the gateway makes
  before(async () => {
    path = writePolicy(policy());
    gw = await startWith(fake, { HERMES_MCP_RESOURCE_POLICY: path, HERMES_MCP_CGROUP_ROOT: join(path, '..', 'no-cgroup') });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await gw.close();
  });

  const jobCalls = (job: Job) => fake.calls().filter((argv) => argv.includes(`--unit=hermes-job-${hexOf(job)}`));
  const scopeOf = (slice: string, unit: string, limits: typeof LIGHT) => [
    '--user', '--scope', '--quiet', '--collect', `--slice=${slice}`, unit,
    '-p', `MemoryMax=${limits.memory_max}`, '-p', `TasksMax=${limits.tasks_max}`, '-p', `CPUQuota=${limits.cpu_quota}`, '--',
  ];

  test('/readyz: enforced via systemd, accepting; probed once with `systemd-run --user --scope ... true`', async () => {
    const r = await readyz(gw);
    assert.equal(r.status, await baselineStatus());
    assert.equal(r.admission.resource_mode, 'enforced');
    assert.equal(r.admission.enforcement, 'systemd');
    assert.equal(r.admission.accepting, true, JSON.stringify(r.admission));
    assert.equal(r.admission.policy, path);
    assert.deepEqual(fake.calls()[0], PROBE);
    assert.equal(fake.calls().filter((c) => c.at(-1) === 'true').length, 1, 'probed exactly once');
  });

  for (const [profile, limits] of [['light', LIGHT], ['heavy', HEAVY]] as const) {
    test(`a ${profile} job runs in its own scope under hermesjobs.slice with the ${profile} limits, and succeeds`, async () => {
      const { client, token } = await session(gw, clients);
      const job = await prepare(client, token, { command: `echo ${profile}-ran-$((6*7))`, workdir: workdir(gw, `scoped-${profile}`), resource_profile: profile });
      assert.deepEqual(jobCalls(job), [], 'prepare runs nothing');
      const started = await viaBridge(client, 'job_start', job, token);
      assert.equal(started.isError, false, JSON.stringify(started.data));
      assert.equal(started.data.resource_profile, profile);
      const final = await waitFinal(client, job);
      assert.equal(final.state, 'succeeded', JSON.stringify(final));
      assert.equal(final.exit_code, 0);
      assert.match(final.output_tail as string, new RegExp(`${profile}-ran-42`));
      const calls = jobCalls(job);
      assert.equal(calls.length, 1, 'launched once');
      assert.deepEqual(calls[0], [...scopeOf('hermesjobs.slice', `--unit=hermes-job-${hexOf(job)}`, limits), ...prefix, process.execPath, ENTRY('process-worker')]);
    });
  }

  test('execute_code workers run in hermesshort.slice scopes with the short_workers limits', async () => {
    const { client, token } = await session(gw, clients);
    const r = await viaBridge(client, 'execute_code', { code: 'print(6*7)' }, token);
    assert.equal(r.data.status, 'success', JSON.stringify(r.data));
    assert.equal(r.data.output, '42\n');
    const short = fake.calls().filter((argv) => argv.includes('--slice=hermesshort.slice'));
    assert.ok(short.length >= 1, 'the (prewarmed) worker that ran the script was scoped');
    for (const argv of short) {
      assert.match(argv[5]!, /^--unit=hermes-exec-[0-9a-f]{16}$/);
      assert.deepEqual(argv, [...scopeOf('hermesshort.slice', argv[5]!, SHORT), ...prefix, gw.native.runtime.config.python, join(packageRoot(), 'workers', 'execute', 'unit.py')]);
    }
    assert.equal(new Set(short.map((a) => a[5])).size, short.length, 'a fresh unit per worker');
  });

  test('one heavy job at a time: a second heavy start is JOB_HEAVY_BUSY while a light one is admitted', async () => {
    const { client, token } = await session(gw, clients);
    const heavy = await prepare(client, token, { command: 'sleep 30', workdir: workdir(gw, 'busy-heavy-1'), resource_profile: 'heavy' });
    const heavy2 = await prepare(client, token, { command: 'true', workdir: workdir(gw, 'busy-heavy-2'), resource_profile: 'heavy' });
    const light = await prepare(client, token, { command: 'sleep 30', workdir: workdir(gw, 'busy-light'), resource_profile: 'light' });
    try {
      const first = await viaBridge(client, 'job_start', heavy, token);
      assert.equal(first.data.state, 'running', JSON.stringify(first.data));
      const second = await viaBridge(client, 'job_start', heavy2, token);
      assert.equal(second.data.error, 'JOB_HEAVY_BUSY', JSON.stringify(second.data));
      assert.equal((await status(client, heavy2)).state, 'prepared', 'the refused job stays prepared');
      assert.deepEqual(jobCalls(heavy2), [], 'nothing was launched for it');
      const third = await viaBridge(client, 'job_start', light, token);
      assert.equal(third.isError, false, JSON.stringify(third.data));
      assert.equal(third.data.state, 'running');
    } finally {
      for (const job of [heavy, light, heavy2]) await viaBridge(client, 'job_cancel', job);
    }
    assert.equal((await status(client, heavy)).state, 'cancelled');
    assert.equal((await status(client, light)).state, 'cancelled');
    assert.equal((await status(client, heavy2)).state, 'cancelled');
  });
});

// ---- memory admission ----------------------------------------------------------------------------

describe('memory budget: reservations of active jobs', () => {
  let gw: TestGateway;
  const clients: Client[] = [];
  before(async () => {
    gw = await startWith(makeFake(), { HERMES_MCP_RESOURCE_POLICY: writePolicy(policy({ memory_budget: HEAVY.memory_max, max_heavy: 2 })) });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await gw.close();
  });

  test('a budget equal to the heavy memory_max: while a heavy job runs, a light job is JOB_MEMORY_UNAVAILABLE', async () => {
    const { client, token } = await session(gw, clients);
    const heavy = await prepare(client, token, { command: 'sleep 30', workdir: workdir(gw, 'budget-heavy'), resource_profile: 'heavy' });
    const light = await prepare(client, token, { command: 'true', workdir: workdir(gw, 'budget-light'), resource_profile: 'light' });
    try {
      assert.equal((await viaBridge(client, 'job_start', heavy, token)).data.state, 'running');
      const r = await viaBridge(client, 'job_start', light, token);
      assert.equal(r.data.error, 'JOB_MEMORY_UNAVAILABLE', JSON.stringify(r.data));
      assert.match(
        String(r.data.message),
        new RegExp(`active jobs reserve ${sizeBytes(HEAVY.memory_max)} bytes of the ${sizeBytes(HEAVY.memory_max)}-byte job memory budget; this job needs ${sizeBytes(LIGHT.memory_max)}`),
      );
      assert.equal((await status(client, light)).state, 'prepared');
    } finally {
      for (const job of [heavy, light]) await viaBridge(client, 'job_cancel', job);
    }
  });
});

describe('host headroom', () => {
  let gw: TestGateway;
  const clients: Client[] = [];
  const fake = makeFake();
  before(async () => {
    gw = await startWith(fake, { HERMES_MCP_RESOURCE_POLICY: writePolicy(policy({ host_headroom: '1000T' })) });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await gw.close();
  });

  test('MemAvailable below memory_max + host_headroom: start refused with JOB_MEMORY_UNAVAILABLE, the job stays prepared', async () => {
    const { client, token } = await session(gw, clients);
    const job = await prepare(client, token, { command: 'true', workdir: workdir(gw, 'headroom'), resource_profile: 'light' });
    const r = await viaBridge(client, 'job_start', job, token);
    assert.equal(r.data.error, 'JOB_MEMORY_UNAVAILABLE', JSON.stringify(r.data));
    assert.match(String(r.data.message), new RegExp(`this job needs ${sizeBytes(LIGHT.memory_max)} plus ${sizeBytes('1000T')} bytes of host headroom`));
    const s = await status(client, job);
    assert.equal(s.state, 'prepared');
    assert.equal(s.started_at, null);
    assert.deepEqual(fake.calls().filter((a) => a.some((x) => x.startsWith('--unit=hermes-job-'))), [], 'nothing launched');
    await viaBridge(client, 'job_cancel', job);
  });
});

// ---- unenforceable -------------------------------------------------------------------------------

describe('policy set but unenforceable (no user manager, no cgroup v2 directory)', () => {
  let gw: TestGateway;
  let home: string;
  let earlier: Job;
  const clients: Client[] = [];
  before(async () => {
    home = makeHermesHome();
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const path = writePolicy(policy());
    const env = { HERMES_MCP_RESOURCE_POLICY: path, HERMES_MCP_CGROUP_ROOT: join(home, 'no-such-cgroup') };
    // A job prepared while the host could still enforce the policy...
    const first = await startWith(makeFake(), env, { home });
    try {
      const { client, token } = await openSession(first.mcpUrl);
      earlier = await prepare(client, token, { command: 'true', workdir: workdir(first, 'earlier'), resource_profile: 'light' });
      await client.close();
    } finally {
      await first.close();
    }
    // ...and the same home after a restart on a host whose user manager is gone.
    gw = await startWith(makeFake({ fail: true }), env, { home });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await gw.close();
  });

  const BUS = /cannot be enforced here: no systemd user manager reachable: Failed to connect to bus: No medium found; \S+no-such-cgroup is not a cgroup v2 directory/;

  test('/readyz: enforcement none, not accepting, with the bus reason; status code unchanged', async () => {
    const r = await readyz(gw);
    assert.equal(r.status, await baselineStatus());
    assert.equal(r.admission.resource_mode, 'enforced');
    assert.equal(r.admission.enforcement, 'none');
    assert.equal(r.admission.accepting, false);
    assert.match(r.admission.resource_reason as string, BUS);
    assert.deepEqual(r.admission.reasons, [r.admission.resource_reason]);
  });

  test('job_prepare is refused with RESOURCE_POLICY_UNENFORCEABLE', async () => {
    const { client, token } = await session(gw, clients);
    const r = await viaBridge(client, 'job_prepare', { command: 'true', workdir: workdir(gw, 'later'), resource_profile: 'light' }, token);
    assert.equal(r.data.error, 'RESOURCE_POLICY_UNENFORCEABLE', JSON.stringify(r.data));
    assert.match(String(r.data.message), /^job_prepare refused: /);
    assert.match(String(r.data.message), BUS);
    assert.deepEqual(jobRows(gw).map((j) => j.id), [earlier.job_id], 'nothing new stored');
  });

  test('job_start of a job prepared earlier is refused with RESOURCE_POLICY_UNENFORCEABLE; it stays prepared', async () => {
    const { client, token } = await session(gw, clients);
    const r = await viaBridge(client, 'job_start', earlier, token);
    assert.equal(r.data.error, 'RESOURCE_POLICY_UNENFORCEABLE', JSON.stringify(r.data));
    assert.match(String(r.data.message), /^job_start refused: /);
    assert.match(String(r.data.message), BUS);
    assert.equal((await status(client, earlier)).state, 'prepared');
    await viaBridge(client, 'job_cancel', earlier);
  });
});

// ---- direct cgroup fallback ----------------------------------------------------------------------

describe('direct cgroup v2 fallback (stand-in cgroup directory)', () => {
  // A plain temp directory stands in for a delegated cgroupfs directory: the gateway's side (probe,
  // child directory, limit files, pid placement) is real, but nothing here is kernel-enforced. The
  // enforcement itself cannot be exercised on this host (its cgroup v2 hierarchy has only the hugetlb
  // controller, no memory/pids/cpu), so these tests check exactly what the gateway writes.
  let gw: TestGateway;
  let root: string;
  const clients: Client[] = [];
  const fake = makeFake({ fail: true });
  before(async () => {
    root = tempDir('hmcp-rp-cgroup-');
    writeFileSync(join(root, 'cgroup.controllers'), 'cpu memory pids\n');
    writeFileSync(join(root, 'cgroup.subtree_control'), '');
    writeFileSync(join(root, 'cgroup.procs'), '');
    gw = await startWith(fake, { HERMES_MCP_RESOURCE_POLICY: writePolicy(policy()), HERMES_MCP_CGROUP_ROOT: root });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await gw.close();
  });

  test('/readyz: enforcement cgroup under the given root, accepting', async () => {
    const r = await readyz(gw);
    assert.equal(r.admission.resource_mode, 'enforced');
    assert.equal(r.admission.enforcement, 'cgroup');
    assert.equal(r.admission.accepting, true, JSON.stringify(r.admission));
    assert.match(r.admission.resource_reason as string, new RegExp(`Failed to connect to bus.*; direct cgroup v2 limits under ${esc(root)}$`));
  });

  test('a started job gets hermes-job-<hex>/ with the profile limits and its worker placed in it', async () => {
    const { client, token } = await session(gw, clients);
    const heavy = await prepare(client, token, { command: 'sleep 30', workdir: workdir(gw, 'cg-heavy'), resource_profile: 'heavy' });
    const light = await prepare(client, token, { command: 'sleep 30', workdir: workdir(gw, 'cg-light'), resource_profile: 'light' });
    try {
      for (const [job, limits, cpu] of [[heavy, HEAVY, '150000 100000'], [light, LIGHT, '50000 100000']] as const) {
        const started = await viaBridge(client, 'job_start', job, token);
        assert.equal(started.data.state, 'running', JSON.stringify(started.data));
        const dir = join(root, `hermes-job-${hexOf(job)}`);
        assert.equal(readFileSync(join(dir, 'memory.max'), 'utf8'), String(sizeBytes(limits.memory_max)));
        assert.equal(readFileSync(join(dir, 'pids.max'), 'utf8'), String(limits.tasks_max));
        assert.equal(readFileSync(join(dir, 'cpu.max'), 'utf8'), cpu);
        // The worker and its descendants at that moment were written one by one (a real
        // cgroup.procs takes one pid per write); a plain file keeps the last: the worker or one of
        // its descendants, still alive while the command runs.
        const placed = readFileSync(join(dir, 'cgroup.procs'), 'utf8');
        assert.match(placed, /^[1-9][0-9]*$/);
        const workerPid = jobRows(gw).find((j) => j.id === job.job_id)?.worker_pid;
        assert.ok(workerPid, 'the worker pid was recorded');
        assert.ok(Number(placed) === workerPid || descendantsOf(workerPid).includes(Number(placed)), `pid ${placed} is the worker ${workerPid} or its descendant`);
      }
      assert.equal(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8'), '+memory +pids +cpu');
      assert.equal(readFileSync(join(root, 'cgroup.procs'), 'utf8'), '', 'nothing placed in the root itself');
      assert.deepEqual(fake.calls(), [PROBE], 'no systemd-run besides the failed probe');
    } finally {
      for (const job of [heavy, light]) await viaBridge(client, 'job_cancel', job);
    }
    assert.equal((await status(client, heavy)).state, 'cancelled');
  });
});
