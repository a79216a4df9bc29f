import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { sizeBytes } from '../../../policy/resource-policy.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { descendantsOf } from '../../../shared/proc.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { HermesCaller } from '../../../supervisor/platform/hermes/call.js';
import { locateHermes } from '../../../supervisor/platform/hermes/locate.js';
import { createWorkerRuntime, type WorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { makeFakeSystemdRun } from '../../helpers/fake-systemd-run.js';
import { hermes } from '../../helpers/hermes.js';
import { processesWithHome } from '../../helpers/procfs.js';
import { resourcePolicy, SHORT, writeResourcePolicy } from '../../helpers/resource-policy.js';
import { tempDirs } from '../../helpers/temp.js';

// Hermes call workers under the host's resource policy, against the pinned real Hermes, as
// execute_code units are (tests/tools/execute-code/execute-resource-policy.test.ts): a systemd scope
// of their own under hermesshort.slice with the short_workers limits when a user manager answers
// (a FAKE systemd-run first on PATH; never the real one), else a cgroup of their own under
// HERMES_MCP_CGROUP_ROOT (a stand-in directory: what the gateway writes is real, the kernel's
// enforcement is not), else the call is refused before any worker starts.

const temp = tempDirs();
after(() => temp.removeAll());

const writePolicy = (mode = 0o644): string => writeResourcePolicy(temp.make('hmcp-call-policy-'), resourcePolicy(), mode);

/** A Hermes caller fronting the pinned Hermes, its workers spawned with `path` (a fake systemd-run first), and the spawns it makes. */
async function caller(path: string, env: Record<string, string>): Promise<{ caller: HermesCaller; runtime: WorkerRuntime; home: string; spawns: Array<{ pid?: number; tree: number[] }> }> {
  const home = temp.make('hmcp-call-res-');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  const all = { PATH: path, HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_AGENT_PYTHON: hermes().python, ...env };
  const config = loadConfig(all, { inheritedEnvironment: { PATH: path } });
  const runtime = createWorkerRuntime(config, { PATH: path });
  const spawns: Array<{ pid?: number; tree: number[] }> = [];
  const spawn = runtime.spawnWorker.bind(runtime);
  runtime.spawnWorker = ((entry, options) => {
    const worker = spawn(entry, options);
    const seen: { pid?: number; tree: number[] } = { ...(worker.pid ? { pid: worker.pid } : {}), tree: [] };
    spawns.push(seen);
    // Registered before the caller's own wait: the worker's tree as it is when it says ready.
    const off = worker.onFrame((m) => {
      if (m.type !== 'ready' || !worker.pid) return;
      off();
      seen.tree = [worker.pid, ...descendantsOf(worker.pid)];
    });
    return worker;
  }) as WorkerRuntime['spawnWorker'];
  return { caller: new HermesCaller(runtime, await locateHermes(config)), runtime, home, spawns };
}

const NOTEBOOK = JSON.stringify({ cells: [{ cell_type: 'code', source: ['print("limited")\n'], outputs: [], metadata: {}, execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 });

/** Hermes' notebook extraction: its text on a Hermes that has it (0.22), HERMES_CALL_UNSUPPORTED on 0.19; either way answered by the worker. */
async function extract(c: HermesCaller): Promise<void> {
  const call = c.call('documents', 'extract', { path: 'limited.ipynb', data: Buffer.from(NOTEBOOK).toString('base64') }, { timeoutMs: 60_000 });
  if (hermes().pin === 'oldest') await assert.rejects(call, { code: ErrorCode.HERMES_CALL_UNSUPPORTED });
  else assert.match(((await call) as { text?: string }).text ?? '', /print\("limited"\)/);
}

test('policy enforced through (fake) systemd scopes: the worker starts in a hermes-call-<hex> scope under hermesshort.slice with the short_workers limits', async () => {
  const fake = makeFakeSystemdRun(temp.make('hmcp-call-fake-'));
  const { caller: c, runtime, home } = await caller(fake.path, { HERMES_MCP_RESOURCE_POLICY: writePolicy(), HERMES_MCP_CGROUP_ROOT: join(temp.make('hmcp-call-nocg-'), 'none') });
  assert.equal(runtime.resources.enforcement, 'systemd');
  await extract(c);
  const scopes = fake.calls().filter((argv) => argv.some((a) => a.startsWith('--unit=')));
  assert.equal(scopes.length, 1, JSON.stringify(fake.calls()));
  const argv = scopes[0]!;
  assert.match(argv.find((a) => a.startsWith('--unit='))!, /^--unit=hermes-call-[0-9a-f]{16}$/);
  assert.ok(argv.includes('--slice=hermesshort.slice'), argv.join(' '));
  for (const property of [`MemoryMax=${SHORT.memory_max}`, `TasksMax=${SHORT.tasks_max}`, `CPUQuota=${SHORT.cpu_quota}`]) assert.ok(argv.includes(property), `${property} in ${argv.join(' ')}`);
  assert.ok(argv.slice(argv.indexOf('--') + 1).some((a) => a.endsWith('hermes-call/run.py')), 'the scope runs the Hermes call worker');
  assert.deepEqual(processesWithHome(home), []);
});

test('no user manager, a delegated cgroup (stand-in directory): the worker is moved into a hermes-call-<hex> cgroup with the limits once it is ready, before Hermes\' code runs', async () => {
  const root = temp.make('hmcp-call-cgroup-');
  writeFileSync(join(root, 'cgroup.controllers'), 'cpu memory pids\n');
  writeFileSync(join(root, 'cgroup.subtree_control'), '');
  writeFileSync(join(root, 'cgroup.procs'), '');
  const fake = makeFakeSystemdRun(temp.make('hmcp-call-fake-'), { fail: true });
  const { caller: c, runtime, home, spawns } = await caller(fake.path, { HERMES_MCP_RESOURCE_POLICY: writePolicy(), HERMES_MCP_CGROUP_ROOT: root });
  assert.equal(runtime.resources.enforcement, 'cgroup');
  await extract(c);
  const dirs = readdirSync(root).filter((n) => /^hermes-call-[0-9a-f]{16}$/.test(n));
  assert.equal(dirs.length, 1, readdirSync(root).join(' '));
  const dir = join(root, dirs[0]!);
  assert.equal(readFileSync(join(dir, 'memory.max'), 'utf8'), String(sizeBytes(SHORT.memory_max)));
  assert.equal(readFileSync(join(dir, 'pids.max'), 'utf8'), String(SHORT.tasks_max));
  assert.equal(readFileSync(join(dir, 'cpu.max'), 'utf8'), '75000 100000');
  // A real cgroup.procs takes one pid per write; the stand-in keeps the last: the deepest process of
  // the worker's tree when it said ready (its interpreter, under the isolation launcher).
  assert.equal(spawns.length, 1);
  assert.ok(existsSync(join(dir, 'cgroup.procs')), 'the worker was placed');
  assert.equal(Number(readFileSync(join(dir, 'cgroup.procs'), 'utf8')), spawns[0]!.tree.at(-1), `placed: one of ${spawns[0]!.tree.join(' ')}`);
  assert.equal(readFileSync(join(root, 'cgroup.procs'), 'utf8'), '', 'nothing placed in the root itself');
  assert.deepEqual(fake.calls(), [['--user', '--scope', '--quiet', '--collect', 'true']], 'no systemd-run besides the failed probe');
  assert.deepEqual(processesWithHome(home), []);
});

test('policy set, no user manager, no delegated cgroup: the call is refused with RESOURCE_POLICY_UNENFORCEABLE before any worker starts, as execute_code is', async () => {
  const fake = makeFakeSystemdRun(temp.make('hmcp-call-fake-'), { fail: true });
  const { caller: c, home, spawns } = await caller(fake.path, { HERMES_MCP_RESOURCE_POLICY: writePolicy(), HERMES_MCP_CGROUP_ROOT: join(temp.make('hmcp-call-nocg-'), 'none') });
  await assert.rejects(c.call('documents', 'extract', { path: 'x.ipynb', data: '' }, { timeoutMs: 60_000 }), (e: GatewayError) => {
    assert.equal(e.code, ErrorCode.RESOURCE_POLICY_UNENFORCEABLE);
    assert.match(e.message, /^Hermes' documents extract refused: resource policy cannot be enforced here: no systemd user manager reachable/);
    return true;
  });
  assert.deepEqual(spawns, []);
  assert.deepEqual(processesWithHome(home), []);
});

test('a policy file that fails its checks (world-writable): RESOURCE_POLICY_INVALID before any worker starts', async () => {
  const fake = makeFakeSystemdRun(temp.make('hmcp-call-fake-'));
  const { caller: c, spawns } = await caller(fake.path, { HERMES_MCP_RESOURCE_POLICY: writePolicy(0o646) });
  await assert.rejects(c.call('cron', 'liveness', {}, { timeoutMs: 60_000 }), { code: ErrorCode.RESOURCE_POLICY_INVALID });
  assert.deepEqual(spawns, []);
});

test('no policy (development mode): no scope, no cgroup, the call runs', async () => {
  const fake = makeFakeSystemdRun(temp.make('hmcp-call-fake-'));
  const { caller: c, runtime } = await caller(fake.path, {});
  assert.equal(runtime.resources.mode, 'development');
  await extract(c);
  assert.deepEqual(fake.calls(), [], 'systemd-run is never run without a policy');
});
