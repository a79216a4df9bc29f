import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { startGatewayBin } from '../../helpers/gateway-bin.js';
import { tempDirs } from '../../helpers/temp.js';

// The README's first command on a fresh machine: the real bin, started from a checkout with HOME an
// empty directory and no HERMES_HOME, serves a ready gateway on the demo home it makes under the
// checkout's .cache/demo/, and says so in one log line. The checkout is a staged copy (its own
// package root), so this checkout's .cache/ is never touched. An installed copy (no .git) and an
// explicit HERMES_HOME that does not exist get no demo: /readyz reports the missing home.

const temp = tempDirs();
let checkout: string;
let installed: string;

/** A package root of the built gateway: dist/, policy/, workers/, build/ copied, node_modules linked; `.git` makes it a checkout. */
function stage(asCheckout: boolean): string {
  const root = temp.make('hmcp-demo-root-');
  const source = packageRoot();
  for (const entry of ['package.json', 'dist', 'policy', 'workers', 'build']) cpSync(join(source, entry), join(root, entry), { recursive: true });
  symlinkSync(join(source, 'node_modules'), join(root, 'node_modules'));
  if (asCheckout) mkdirSync(join(root, '.git'));
  return root;
}

before(() => {
  checkout = stage(true);
  installed = stage(false);
});
after(() => temp.removeAll());

function freshMachine(): Record<string, string> {
  const home = temp.make('hmcp-demo-home-');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  return { HOME: home, PATH: '/usr/bin:/bin', HERMES_MCP_STATE_DIR: join(home, 'state') };
}

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
