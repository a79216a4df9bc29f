import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { makeBridgeFixture, type BridgeFixture } from '../../helpers/bridge.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { within } from '../../helpers/wait.js';

// The operator scripts as child processes: bridge-smoke against both profile mounts (backed by the
// Hermes API stand-in), bridge-token generate/rotate (0600, path printed, value never), a rotated
// token taking effect without a restart, and the stand-in runnable on its own. Stand-in: the
// scripts are under test; bridge-smoke's checks on real Hermes are real-hermes.test.ts's cases.

const run = promisify(execFile);
const script = (name: string) => join(packageRoot(), 'dist', 'scripts', name);

describe('bridge operator scripts', () => {
  const temp = tempDirs();
  let fx: BridgeFixture;
  let gw: TestGateway;
  before(async () => {
    fx = await makeBridgeFixture(temp.make('hmcp-smoke-'), { mcpPort: 0 });
    gw = await startTestGateway({ env: fx.env, limits: { bridgeRateLimitPerMinute: 10_000 } });
  });
  after(async () => {
    await gw.close();
    await fx.close();
    temp.removeAll();
  });

  for (const mount of ['gateway', 'own'] as const) {
    test(`bridge-smoke passes against the ${mount} mount and never prints the token`, async () => {
      const base = mount === 'gateway' ? `${gw.url}/bridge` : gw.bridgeUrl!;
      const { stdout } = await run(process.execPath, [script('bridge-smoke.js'), base, '--env', fx.envFile, '--id', `smoke-${mount}`], { timeout: 20_000 });
      assert.match(stdout, /all checks passed/);
      assert.equal((stdout.match(/^ok /gm) ?? []).length, 10);
      assert.ok(!stdout.includes(fx.token));
    });
  }

  test('bridge-smoke takes the bridge\'s own --base URL form too', async () => {
    const { stdout } = await run(process.execPath, [script('bridge-smoke.js'), '--base', gw.bridgeUrl!, '--env', fx.envFile, '--id', 'smoke-base'], { timeout: 20_000 });
    assert.match(stdout, /all checks passed/);
  });

  test('bridge-smoke: a bad gateway configuration is a one-line usage error (exit 2), not a stack trace', async () => {
    await assert.rejects(
      run(process.execPath, [script('bridge-smoke.js'), gw.bridgeUrl!], { timeout: 20_000, env: { PATH: process.env.PATH ?? '', HERMES_MCP_ROOTS: 'relative/root', HERMES_MCP_BRIDGE_ENV: fx.envFile } }),
      (e: { code?: number; stderr?: string }) => e.code === 2 && /^bridge-smoke: HERMES_MCP_ROOTS entries must be absolute/.test(e.stderr ?? '') && !/\n\s+at /.test(e.stderr ?? ''),
    );
  });

  test('bridge-smoke fails (exit 1) against an endpoint that is not a bridge', async () => {
    await assert.rejects(run(process.execPath, [script('bridge-smoke.js'), `${gw.url}`, '--env', fx.envFile], { timeout: 20_000 }), (e: { code?: number; stdout?: string }) => e.code === 1 && /FAIL GET \/health/.test(e.stdout ?? ''));
  });

  test('bridge-token: generate writes 0600 and prints only the path; generate keeps, rotate replaces; the profile follows without a restart', async () => {
    const file = join(fx.dir, 'new.env');
    writeFileSync(file, 'TASKS_DIR=/tmp/x\n', { mode: 0o644 });
    const first = await run(process.execPath, [script('bridge-token.js'), 'generate', '--env', file]);
    const token = /MCP_AUTH_TOKEN=([0-9a-f]{64})/.exec(readFileSync(file, 'utf8'))![1]!;
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(first.stdout, new RegExp(`^${file}: MCP_AUTH_TOKEN written`));
    assert.ok(!first.stdout.includes(token));
    assert.match(readFileSync(file, 'utf8'), /^TASKS_DIR=\/tmp\/x\n/);
    await run(process.execPath, [script('bridge-token.js'), 'generate', '--env', file]);
    assert.ok(readFileSync(file, 'utf8').includes(token), 'generate keeps a valid token');

    const ping = (t: string) =>
      fetch(`${gw.bridgeUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    assert.equal((await ping(fx.token)).status, 200);
    const rotated = await run(process.execPath, [script('bridge-token.js'), 'rotate', '--env', fx.envFile]);
    assert.match(rotated.stdout, /rotated/);
    const fresh = /MCP_AUTH_TOKEN=([0-9a-f]{64})/.exec(readFileSync(fx.envFile, 'utf8'))![1]!;
    assert.notEqual(fresh, fx.token);
    assert.ok(!rotated.stdout.includes(fresh));
    assert.equal((await ping(fx.token)).status, 401, 'the old token is refused at once');
    assert.equal((await ping(fresh)).status, 200);
  });

  test('the Hermes API stand-in runs on its own: --port 0 --key K --max-concurrent 1', async () => {
    const child = spawn(process.execPath, [join(packageRoot(), 'dist', 'tests', 'fixtures', 'hermes-api-standin.js'), '--port', '0', '--key', 'sk-alone-0123456789', '--max-concurrent', '1', '--run-delay-ms', '5000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await within(
        new Promise<string>((resolve) => child.stdout.on('data', (d: Buffer) => /listening (\S+)/.test(String(d)) && resolve(/listening (\S+)/.exec(String(d))![1]!))),
        5000,
        'the stand-in to listen',
      );
      assert.equal((await fetch(`${url}/health`)).status, 200);
      assert.equal((await fetch(`${url}/v1/runs`, { method: 'POST', body: '{}' })).status, 401);
      const accepted = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer sk-alone-0123456789' }, body: JSON.stringify({ input: 'hi' }) });
      assert.equal(accepted.status, 202);
      const second = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer sk-alone-0123456789' }, body: JSON.stringify({ input: 'again' }) });
      assert.equal(second.status, 429, 'max_concurrent_runs 1: the first run still holds the slot');
      assert.equal(second.headers.get('retry-after'), '1');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
