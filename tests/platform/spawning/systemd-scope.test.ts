import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { environmentSnapshot, loadConfig } from '../../../supervisor/platform/config.js';
import { nativeAdapter } from '../../../supervisor/compose/native.js';
import { createWorkerRuntime, type WorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import type { ExecuteUnitProtocol } from '../../../shared/worker-protocol/execute.js';
import type { ProtocolMessages } from '../../../shared/worker-protocol/protocol.js';
import { createLogger } from '../../../supervisor/platform/telemetry.js';
import { detectSystemdScope, scopeArgv } from '../../../supervisor/platform/spawning/systemd-scope.js';
import type { WorkerProcess } from '../../../supervisor/platform/spawning/worker-process.js';
import { within } from '../../helpers/wait.js';
import { makeFakeSystemdRun, type FakeSystemdRun } from '../../helpers/fake-systemd-run.js';
import { tempDirs } from '../../helpers/temp.js';

// systemd scopes for execute_code workers, against a FAKE systemd-run first on PATH: it logs its argv
// as one JSON line, skips its options up to `--` (or the first non-option, as the probe has no `--`)
// and execs the rest, like the real `--scope` (same pid, fds kept: the fd-3 channel still works).
// Never the real systemd-run here: no test may start or talk to a systemd manager.

const UNIT_PY = join(packageRoot(), 'workers', 'execute', 'unit.py');
const temp = tempDirs();
// Run in reverse: whatever a test started goes before the directories it used (removed last).
const cleanup: Array<() => Promise<void> | void> = [() => temp.removeAll()];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});
const tempDir = temp.make;

type Fake = FakeSystemdRun;
const makeFake = (options: { fail?: boolean } = {}): Fake => makeFakeSystemdRun(tempDir('hmcp-fake-sdrun-'), options);

/** A script in its own directory, named systemd-run, for the probe's failure cases. */
function fakeWith(body: string): string {
  const bin = tempDir('hmcp-fake-sdrun-');
  writeFileSync(join(bin, 'systemd-run'), `#!/bin/bash\n${body}\n`);
  chmodSync(join(bin, 'systemd-run'), 0o755);
  return `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`;
}

function configFor(options: { resourcePolicy: boolean }) {
  const home = tempDir('hmcp-scope-home-');
  const state = tempDir('hmcp-scope-state-');
  const policy = join(home, 'resource-policy.json');
  // The shipped example policy: short workers get 1G / 100% / 256 tasks.
  writeFileSync(policy, readFileSync(join(packageRoot(), 'policy', 'resource-policy.example.json')), { mode: 0o644 });
  return loadConfig({
    HERMES_HOME: home,
    HERMES_MCP_ROOTS: home,
    HERMES_MCP_STATE_DIR: state,
    // No delegated cgroup tree: without a bus the policy is unenforceable here, never half-applied.
    HERMES_MCP_CGROUP_ROOT: join(home, 'no-cgroup'),
    ...(options.resourcePolicy ? { HERMES_MCP_RESOURCE_POLICY: policy } : {}),
  });
}

function runtimeFor(fake: Fake, options: { resourcePolicy: boolean }): WorkerRuntime {
  // The environment the gateway would be started with: the fake first on PATH, plus the FAKE_* knobs
  // (which the scrub drops for workers, see makeFake).
  return createWorkerRuntime(configFor(options), { ...process.env, PATH: fake.path, FAKE_SYSTEMD_RUN_LOG: fake.log });
}

function track<P extends ProtocolMessages>(worker: WorkerProcess<P>): WorkerProcess<P> {
  cleanup.push(() => worker.kill());
  return worker;
}


function spawnExecuteWorker(runtime: WorkerRuntime): WorkerProcess<ExecuteUnitProtocol> {
  return track(runtime.spawnWorker('execute-unit', { env: { PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' } }));
}

/** Sends a ready unit its script; resolves with the done frame and what the script printed. */
async function runScript(worker: WorkerProcess<ExecuteUnitProtocol>, code: string): Promise<{ exitCode: unknown; stdout: string }> {
  let stdout = '';
  worker.scriptIo.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const closed = new Promise((resolve) => worker.scriptIo.stdout.once('close', resolve));
  const done = worker.waitFor((f) => f.type === 'done');
  worker.scriptIo.stdin.end(code);
  const frame = await within(done, 10_000, 'the script');
  await worker.kill(); // as the gateway does once it has the answer: its wrappers hold the pipes
  await within(closed, 5000, 'the script output to end');
  return { exitCode: frame.exitCode, stdout };
}

const PROBE = ['--user', '--scope', '--quiet', '--collect', 'true'];
const UNIT = /^--unit=hermes-exec-[0-9a-f]{16}$/;

describe('scopeArgv', () => {
  test('every property, in order, ending with --', () => {
    assert.deepEqual(scopeArgv({ unit: 'hermes-exec-ab12', slice: 'hermesshort.slice', limits: { memory_max: '1G', tasks_max: 256, cpu_quota: '100%' } }), [
      'systemd-run', '--user', '--scope', '--quiet', '--collect', '--slice=hermesshort.slice', '--unit=hermes-exec-ab12',
      '-p', 'MemoryMax=1G', '-p', 'TasksMax=256', '-p', 'CPUQuota=100%', '--',
    ]);
  });

  test('the values are the policy\'s, verbatim', () => {
    assert.deepEqual(scopeArgv({ unit: 'u', slice: 'hermesjobs.slice', limits: { memory_max: '8G', tasks_max: 4096, cpu_quota: '200%' } }).slice(5), [
      '--slice=hermesjobs.slice', '--unit=u', '-p', 'MemoryMax=8G', '-p', 'TasksMax=4096', '-p', 'CPUQuota=200%', '--',
    ]);
  });
});

describe('detectSystemdScope', () => {
  test('available when the probe succeeds; it runs `systemd-run --user --scope --quiet --collect true`', () => {
    const fake = makeFake();
    const r = detectSystemdScope({ PATH: fake.path });
    assert.equal(r.available, true, r.reason);
    assert.deepEqual(fake.calls(), [PROBE]);
  });

  test('"Failed to connect to bus" (no user manager): unavailable', () => {
    const fake = makeFake({ fail: true });
    const r = detectSystemdScope({ PATH: fake.path });
    assert.equal(r.available, false);
    assert.match(r.reason, /Failed to connect to bus: No medium found/);
  });

  test('"not been booted with systemd": unavailable', () => {
    const r = detectSystemdScope({ PATH: fakeWith(`echo "System has not been booted with systemd as init system (PID 1). Can't operate." >&2; exit 1`) });
    assert.equal(r.available, false);
    assert.match(r.reason, /not booted with systemd/);
  });

  test('any other non-zero exit: unavailable, with the status', () => {
    const r = detectSystemdScope({ PATH: fakeWith('echo "Unit hermes.scope already exists." >&2; exit 3') });
    assert.equal(r.available, false);
    assert.match(r.reason, /exited with status 3: Unit hermes.scope already exists/);
  });

  test('no systemd-run on PATH (ENOENT): unavailable', () => {
    const r = detectSystemdScope({ PATH: tempDir('hmcp-empty-path-') });
    assert.equal(r.available, false);
    assert.match(r.reason, /ENOENT/);
  });
});

describe('worker runtime', () => {
  test('resource policy + scopes available: execute_code workers start in a hermesshort.slice scope and still work', async () => {
    const fake = makeFake();
    const runtime = runtimeFor(fake, { resourcePolicy: true });
    assert.equal(runtime.scoped, true, runtime.resources.reason);
    assert.deepEqual(fake.calls(), [PROBE], 'probed exactly once, at creation');

    const worker = spawnExecuteWorker(runtime);
    await within(worker.waitFor((f) => f.type === 'ready'), 15_000, 'ready');
    const calls = fake.calls();
    assert.equal(calls.length, 2);
    const argv = calls[1]!;
    const sep = argv.indexOf('--');
    assert.deepEqual(argv.slice(0, 5), ['--user', '--scope', '--quiet', '--collect', '--slice=hermesshort.slice']);
    assert.match(argv[5]!, UNIT);
    assert.deepEqual(argv.slice(6, sep + 1), ['-p', 'MemoryMax=1G', '-p', 'TasksMax=256', '-p', 'CPUQuota=100%', '--']);
    assert.deepEqual(argv.slice(sep + 1), [...runtime.isolation.prefix, runtime.config.python, UNIT_PY], 'then the usual unit command line');

    // Like the real --scope, the fake execs: the process WorkerProcess holds is no longer the script.
    const cmdline = readFileSync(`/proc/${worker.pid}/cmdline`, 'utf8').split('\0');
    assert.notEqual(cmdline[0], 'bash');
    assert.ok(!cmdline.some((a) => a.endsWith('systemd-run')), `scope wrapper replaced itself: ${cmdline.join(' ')}`);

    // Frames both ways: a hermes_tools.terminal-style command, then the script.
    const stateDir = tempDir('hmcp-scope-exec-');
    const result = worker.request({ type: 'exec', command: 'echo scoped-$((6*7))', cwd: '/', timeoutMs: 10_000, stateDir, maxOutputBytes: 4096 });
    const r = await within(result, 10_000, 'the command result');
    assert.ok(!('error' in r), JSON.stringify(r));
    assert.equal(r.exitCode, 0);
    assert.match(String(r.output), /scoped-42/);
    const d = await runScript(worker, 'print(1)');
    assert.equal(d.exitCode, 0);
    assert.equal(d.stdout, '1\n');

    // Each execute_code worker gets its own unit; terminal workers are never scoped.
    const second = spawnExecuteWorker(runtime);
    await within(second.waitFor((f) => f.type === 'ready'), 15_000, 'ready');
    const terminal = track(runtime.spawnWorker('terminal-worker'));
    await within(terminal.waitFor((f) => f.type === 'ready'), 15_000, 'ready');
    const later = fake.calls();
    assert.equal(later.length, 3, 'the terminal worker did not go through systemd-run');
    assert.match(later[2]![5]!, UNIT);
    assert.notEqual(later[2]![5], argv[5], 'a fresh unit name per worker');
    await second.kill();
    await terminal.kill();
  });

  test('resource policy but "Failed to connect to bus": scopes unavailable, workers spawn without the prefix', async () => {
    const fake = makeFake({ fail: true });
    const runtime = runtimeFor(fake, { resourcePolicy: true });
    assert.equal(runtime.scoped, false);
    assert.match(runtime.resources.reason, /Failed to connect to bus/);
    const worker = spawnExecuteWorker(runtime);
    await within(worker.waitFor((f) => f.type === 'ready'), 15_000, 'ready');
    assert.equal((await runScript(worker, 'print(2)')).stdout, '2\n');
    assert.deepEqual(fake.calls(), [PROBE], 'only the probe ever ran systemd-run');
  });

  test('no resource policy: systemd-run is never called (not even probed)', async () => {
    const fake = makeFake();
    const runtime = runtimeFor(fake, { resourcePolicy: false });
    assert.equal(runtime.scoped, false);
    const worker = spawnExecuteWorker(runtime);
    await within(worker.waitFor((f) => f.type === 'ready'), 15_000, 'ready');
    await worker.kill();
    assert.equal(existsSync(fake.log), false, 'the fake never ran');
  });
});

describe('native adapter health facts', () => {
  const silent = () =>
    createLogger(
      'silent',
      new Writable({
        write(_c, _e, cb) {
          cb();
        },
      }),
    );

  for (const [label, resourcePolicy, fail, expected] of [
    ['scoped', true, false, true],
    ['policy set, no bus', true, true, false],
    ['no policy', false, false, false],
  ] as const) {
    test(`systemd_scope is ${expected} (${label})`, async () => {
      const fake = makeFake({ fail });
      // The environment the gateway was started with: the fake first on PATH.
      const adapter = nativeAdapter({ ...configFor({ resourcePolicy }), inheritedEnvironment: environmentSnapshot({ ...process.env, PATH: fake.path }) }, silent());
      try {
        assert.equal(adapter.health?.().systemd_scope, expected);
        assert.equal(existsSync(fake.log), resourcePolicy, resourcePolicy ? 'probed' : 'never probed without a policy');
      } finally {
        await adapter.close?.();
      }
    });
  }
});
