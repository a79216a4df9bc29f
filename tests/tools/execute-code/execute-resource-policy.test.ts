import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sizeBytes } from '../../../policy/resource-policy.js';
import { descendantsOf } from '../../../shared/proc.js';
import { connect, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';
import { makeFakeSystemdRun, type FakeSystemdRun } from '../../helpers/fake-systemd-run.js';
import { SHORT, writeResourcePolicy } from '../../helpers/resource-policy.js';
import { tempDirs } from '../../helpers/temp.js';

// Short execute_code workers under a host resource policy, end to end (real gateway, real MCP
// client, FAKE systemd-run first on PATH; never the real one): a systemd scope when a user manager
// answers, else a direct cgroup of their own under HERMES_MCP_CGROUP_ROOT (a stand-in directory
// here, as in tests/tools/jobs/resource-policy.test.ts), else execute_code is refused with
// RESOURCE_POLICY_UNENFORCEABLE before anything runs. /readyz.short_worker_admission says which.

const temp = tempDirs();
after(() => temp.removeAll());

const writePolicy = (): string => writeResourcePolicy(temp.make('hmcp-erp-policy-'));

/** A gateway whose startup probe and workers see `fake` first on PATH (read once, at creation). */
async function startWith(fake: FakeSystemdRun, env: Record<string, string>): Promise<TestGateway> {
  const saved = process.env.PATH;
  process.env.PATH = fake.path;
  try {
    return await startTestGateway({ env });
  } finally {
    process.env.PATH = saved;
  }
}

async function readyz(gw: TestGateway): Promise<{ status: number; admission: Record<string, unknown> }> {
  const r = await fetch(`${gw.url}/readyz`);
  const body = (await r.json()) as Record<string, unknown>;
  return { status: r.status, admission: body.short_worker_admission as Record<string, unknown> };
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Worker processes (execute_code units, prepared or running, or any other) under this test process. */
const unitProcesses = () => descendantsOf(process.pid).filter((pid) => cmdline(pid).includes('/workers/'));

async function executeCode(gw: TestGateway, code: string) {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    return (await viaBridge(client, 'execute_code', { code })).data;
  } finally {
    await client.close();
  }
}

describe('policy set, no user manager, no delegated cgroup: execute_code fails closed', () => {
  let gw: TestGateway;
  let baseline: number;
  before(async () => {
    const plain = await startWith(makeFakeSystemdRun(temp.make('hmcp-erp-fake-'), { fail: true }), {});
    try {
      baseline = (await readyz(plain)).status;
    } finally {
      await plain.close();
    }
    const home = temp.make('hmcp-erp-nocg-');
    gw = await startWith(makeFakeSystemdRun(temp.make('hmcp-erp-fake-'), { fail: true }), { HERMES_MCP_RESOURCE_POLICY: writePolicy(), HERMES_MCP_CGROUP_ROOT: join(home, 'no-such-cgroup') });
  });
  after(async () => {
    await gw.close();
  });

  test('execute_code is refused with RESOURCE_POLICY_UNENFORCEABLE and the script never runs', async () => {
    const marker = join(gw.home, 'exec-ran');
    const r = await executeCode(gw, `open(${JSON.stringify(marker)}, "w").close()`);
    assert.equal(r.error, 'RESOURCE_POLICY_UNENFORCEABLE', JSON.stringify(r));
    assert.match(String(r.message), /^execute_code refused: resource policy cannot be enforced here: no systemd user manager reachable: Failed to connect to bus.*no-such-cgroup is not a cgroup v2 directory/);
    assert.equal(existsSync(marker), false);
  });

  test('no unit is prepared for calls that would be refused', async () => {
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(unitProcesses(), []);
  });

  test('/readyz: short_worker_admission not accepting, enforcement none, with the reason; status code unchanged', async () => {
    const r = await readyz(gw);
    assert.equal(r.status, baseline, 'the control plane status is not affected by the policy');
    assert.equal(r.admission.accepting, false, JSON.stringify(r.admission));
    assert.equal(r.admission.resource_mode, 'enforced');
    assert.equal(r.admission.enforcement, 'none');
    assert.equal(r.admission.error, 'RESOURCE_POLICY_UNENFORCEABLE');
    assert.match(String(r.admission.resource_reason), /Failed to connect to bus/);
    assert.deepEqual(r.admission.reasons, [r.admission.resource_reason]);
  });
});

describe('policy set, no user manager, a delegated cgroup (stand-in directory): units run in their own cgroups', () => {
  // A plain directory stands in for the delegated cgroupfs directory: what the gateway writes
  // (child directory, limit files, pid placement) is real, the kernel enforcement is not (this
  // host's cgroup v2 tree has no memory/pids/cpu controllers to delegate).
  let gw: TestGateway;
  let root: string;
  let fake: FakeSystemdRun;
  before(async () => {
    root = temp.make('hmcp-erp-cgroup-');
    writeFileSync(join(root, 'cgroup.controllers'), 'cpu memory pids\n');
    writeFileSync(join(root, 'cgroup.subtree_control'), '');
    writeFileSync(join(root, 'cgroup.procs'), '');
    fake = makeFakeSystemdRun(temp.make('hmcp-erp-fake-'), { fail: true });
    gw = await startWith(fake, { HERMES_MCP_RESOURCE_POLICY: writePolicy(), HERMES_MCP_CGROUP_ROOT: root });
  });
  after(async () => {
    await gw.close();
  });

  const execDirs = () => readdirSync(root).filter((n) => /^hermes-exec-[0-9a-f]{16}$/.test(n));

  test('the script runs in a hermes-exec-<hex> cgroup with the short_workers limits, its unit placed in it first', async () => {
    const started = join(gw.home, 'started');
    const go = join(gw.home, 'go');
    const code = `import os, time\nopen(${JSON.stringify(started)}, "w").close()\nwhile not os.path.exists(${JSON.stringify(go)}):\n    time.sleep(0.01)\nprint(6*7)`;
    const call = executeCode(gw, code);
    try {
      const end = Date.now() + 10_000;
      while (!existsSync(started) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      assert.ok(existsSync(started), 'the script started');
      const units = new Set(unitProcesses());
      const dirs = execDirs();
      assert.ok(dirs.length >= 1, 'a cgroup per unit');
      let placedUnits = 0;
      for (const name of dirs) {
        const dir = join(root, name);
        assert.equal(readFileSync(join(dir, 'memory.max'), 'utf8'), String(sizeBytes(SHORT.memory_max)));
        assert.equal(readFileSync(join(dir, 'pids.max'), 'utf8'), String(SHORT.tasks_max));
        assert.equal(readFileSync(join(dir, 'cpu.max'), 'utf8'), '75000 100000');
        // A unit still starting up has not been moved in yet. A real cgroup.procs takes one pid per
        // write; the stand-in keeps the last: a live process of one of the units.
        if (!existsSync(join(dir, 'cgroup.procs'))) continue;
        const placed = Number(readFileSync(join(dir, 'cgroup.procs'), 'utf8'));
        assert.ok(units.has(placed), `pid ${placed} in ${name} belongs to a unit (${[...units].join(' ')})`);
        placedUnits++;
      }
      assert.ok(placedUnits >= 1, 'at least the unit running the script was placed in its cgroup');
    } finally {
      writeFileSync(go, '');
    }
    const r = await call;
    assert.equal(r.status, 'success', JSON.stringify(r));
    assert.equal(r.output, '42\n');
    assert.equal(readFileSync(join(root, 'cgroup.procs'), 'utf8'), '', 'nothing placed in the root itself');
    assert.deepEqual(fake.calls(), [['--user', '--scope', '--quiet', '--collect', 'true']], 'no systemd-run besides the failed probe');
  });

  test('/readyz: short_worker_admission accepting, enforcement cgroup under the given root, with the limits', async () => {
    const r = await readyz(gw);
    assert.equal(r.admission.accepting, true, JSON.stringify(r.admission));
    assert.equal(r.admission.enforcement, 'cgroup');
    assert.equal(r.admission.cgroup_root, root);
    assert.deepEqual(r.admission.limits, SHORT);
    assert.equal(r.admission.reasons, undefined);
  });
});

describe('policy enforced through (fake) systemd scopes', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startWith(makeFakeSystemdRun(temp.make('hmcp-erp-fake-')), { HERMES_MCP_RESOURCE_POLICY: writePolicy(), HERMES_MCP_CGROUP_ROOT: join(temp.make('hmcp-erp-nocg-'), 'none') });
  });
  after(async () => {
    await gw.close();
  });

  test('/readyz: short_worker_admission accepting, enforcement systemd under hermesshort.slice, with the limits', async () => {
    const r = await readyz(gw);
    assert.equal(r.admission.accepting, true, JSON.stringify(r.admission));
    assert.equal(r.admission.enforcement, 'systemd');
    assert.equal(r.admission.slice, 'hermesshort.slice');
    assert.deepEqual(r.admission.limits, SHORT);
  });
});

describe('no policy (development mode)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startWith(makeFakeSystemdRun(temp.make('hmcp-erp-fake-'), { fail: true }), {});
  });
  after(async () => {
    await gw.close();
  });

  test('/readyz: short_worker_admission accepting, nothing enforced, and execute_code runs', async () => {
    const r = await readyz(gw);
    assert.equal(r.admission.accepting, true);
    assert.equal(r.admission.resource_mode, 'development');
    assert.equal(r.admission.enforcement, 'none');
    assert.equal(r.admission.limits, undefined);
    assert.equal((await executeCode(gw, 'print(1)')).output, '1\n');
  });
});
