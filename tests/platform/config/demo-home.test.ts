import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { freshMachine as freshMachineOf, stageDemoCheckout } from '../../helpers/demo.js';
import { startGatewayBin } from '../../helpers/gateway-bin.js';
import { tempDirs } from '../../helpers/temp.js';

// The README's first command on a fresh machine: the real bin, started from a checkout with HOME an
// empty directory and no HERMES_HOME, serves a ready gateway on the demo home it makes under the
// checkout's .cache/demo/, and says so in one log line. The checkout is a staged copy (its own
// package root), so this checkout's .cache/ is never touched. An installed copy (no .git) and an
// explicit HERMES_HOME that does not exist get no demo: /readyz reports the missing home. The demo's
// project root holds the demo project (policy/demo-project), whose tests pass as they are; a later
// start copies back only what is missing there, never over a file the user changed.

const temp = tempDirs();
let checkout: string;
let installed: string;

before(() => {
  checkout = stageDemoCheckout(temp, true);
  installed = stageDemoCheckout(temp, false);
});
after(() => temp.removeAll());

const stage = (asCheckout: boolean) => stageDemoCheckout(temp, asCheckout);
const freshMachine = () => freshMachineOf(temp);

async function readyz(root: string, env: Record<string, string>) {
  const gateway = await startGatewayBin(join(root, 'dist', 'bin', 'gateway.js'), env);
  try {
    const res = await fetch(`${gateway.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { reasons?: Array<{ component: string; action: string }>; components: Record<string, { required: boolean; details?: Record<string, unknown> }> }, ...(await gateway.stop()) };
  } catch (e) {
    await gateway.stop();
    throw e;
  }
}

test('from a checkout without a Hermes home: /readyz 200 on the demo home, said in one log line', async () => {
  const env = freshMachine();
  const result = await readyz(checkout, env);
  assert.equal(result.status, 200, JSON.stringify(result.body.reasons));
  const demo = join(checkout, '.cache', 'demo');
  assert.ok(existsSync(join(demo, 'hermes-home', 'SOUL.md')), 'the demo home is made on first use');
  assert.deepEqual(result.body.components.roots!.details!.roots, [join(demo, 'work')]);
  for (const name of ['memory', 'lsp', 'graph', 'browser', 'hermes_tools', 'web_provider']) assert.equal(result.body.components[name]!.required, false, `${name} optional in the demo`);
  const lines = result.logs.filter((l) => l.event === 'demo_home');
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.home, join(demo, 'hermes-home'));
  assert.match(String(lines[0]!.msg), /demo home at .*memory, lsp, graph, browser, hermes_tools, web_provider are optional here.*set HERMES_HOME to your Hermes home/);
  assert.ok(!result.logs.some((l) => Number(l.level) >= 50), 'no error-level line');
  // What the demo declared optional is expected to be missing: said at info, not as warnings.
  for (const event of ['graph_unavailable', 'hermes_tools_unavailable']) assert.equal(result.logs.find((l) => l.event === event)?.level, 30, `${event} at info`);
  assert.equal(existsSync(join(env.HOME!, '.hermes')), false, 'the real default home is not made');
  // A second start reuses it.
  assert.equal((await readyz(checkout, freshMachine())).status, 200);
});

test('an explicit HERMES_HOME that does not exist still refuses readiness, and makes no demo', async () => {
  const root = stage(true);
  const missing = join(temp.make('hmcp-demo-missing-'), 'no-such-home');
  const result = await readyz(root, { ...freshMachine(), HERMES_HOME: missing });
  assert.equal(result.status, 503);
  const startup = result.body.reasons?.find((r) => r.component === 'startup_files');
  assert.match(startup?.action ?? '', new RegExp(`create the Hermes home ${missing}`));
  assert.ok(result.body.reasons!.some((r) => r.component === 'memory'), 'production components stay required');
  assert.equal(existsSync(join(root, '.cache')), false);
  assert.ok(!result.logs.some((l) => l.event === 'demo_home'));
});

test('an installed copy (not a checkout) gets no demo home', async () => {
  const result = await readyz(installed, freshMachine());
  assert.equal(result.status, 503);
  assert.ok(result.body.reasons!.some((r) => r.component === 'startup_files'));
  assert.equal(existsSync(join(installed, '.cache')), false);
});

/** The demo project's files as shipped (relative paths). */
function projectFiles(): string[] {
  const project = join(packageRoot(), 'policy', 'demo-project');
  return (readdirSync(project, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => statSync(join(project, f)).isFile() && !f.split('/').includes('__pycache__')).sort();
}

test('the demo project root holds the demo project, its tests pass, and a restart restores only what is missing', async () => {
  const root = stage(true);
  const work = join(root, '.cache', 'demo', 'work');
  const shipped = projectFiles();
  // Bytecode a local run of the project's tests left in the checkout is not copied.
  mkdirSync(join(root, 'policy', 'demo-project', '__pycache__'));
  writeFileSync(join(root, 'policy', 'demo-project', '__pycache__', 'greet.cpython-311.pyc'), 'bytecode');
  assert.ok(shipped.includes('README.md') && shipped.some((f) => f.endsWith('.py')), `a README and a Python module: ${shipped.join(', ')}`);
  const first = await readyz(root, freshMachine());
  assert.equal(first.status, 200, JSON.stringify(first.body.reasons));
  for (const f of shipped) {
    assert.equal(readFileSync(join(work, f), 'utf8'), readFileSync(join(root, 'policy', 'demo-project', f), 'utf8'), `${f} copied as shipped`);
    assert.equal(statSync(join(work, f)).mode & 0o777, 0o600, `${f} is the user's alone`);
  }
  assert.deepEqual(first.logs.find((l) => l.event === 'demo_home')?.seeded, shipped, 'the log line names the files copied');
  assert.equal(existsSync(join(work, '__pycache__')), false);
  // The project's own tests pass with the system python3, as terminal and jobs run them.
  const run = spawnSync('python3', ['-m', 'unittest', '-v'], { cwd: work, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' } });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /^Ran [1-9]\d* tests? in .*\n\nOK\n$/m);
  // A changed file is kept, a removed one comes back, and nothing else is written.
  writeFileSync(join(work, 'README.md'), '# mine\n');
  const removed = shipped.find((f) => f !== 'README.md')!;
  rmSync(join(work, removed));
  const second = await readyz(root, freshMachine());
  assert.equal(second.status, 200);
  assert.equal(readFileSync(join(work, 'README.md'), 'utf8'), '# mine\n', 'a file the user changed is never overwritten');
  assert.ok(existsSync(join(work, removed)), `${removed} copied again`);
  assert.deepEqual(second.logs.find((l) => l.event === 'demo_home')?.seeded, [removed]);
});
