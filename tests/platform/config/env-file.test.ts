import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { ConfigError, loadConfig } from '../../../supervisor/platform/config.js';
import { gatewayEnvironment } from '../../../supervisor/platform/environment.js';
import { runGatewayBin, startGatewayBin } from '../../helpers/gateway-bin.js';
import { tempDirs } from '../../helpers/temp.js';

// $HERMES_HOME/.env, read by the gateway itself (not only by the systemd unit): the real bin started
// with a setting only the file has uses it, the process environment wins over the file, doctor names
// where each setting came from without showing a value, and a file others could write (or of
// another user) is refused with ENV_FILE_UNSAFE, its path and the command that fixes it.

const MAIN = join(packageRoot(), 'dist', 'bin', 'gateway.js');
const temp = tempDirs();
after(() => temp.removeAll());

const SECRET = 'hon-secret-value-1234567890';

function home(envFile: (dir: string) => string, mode = 0o600): { dir: string; env: Record<string, string> } {
  const dir = temp.make('hmcp-envfile-');
  writeFileSync(join(dir, 'SOUL.md'), '# Soul\n');
  mkdirSync(join(dir, 'work'));
  mkdirSync(join(dir, 'state'), { mode: 0o700 });
  writeFileSync(join(dir, '.env'), envFile(dir), { mode });
  chmodSync(join(dir, '.env'), mode);
  // No HERMES_MCP_OPTIONAL_COMPONENTS here: where a test needs it, the file supplies it.
  return { dir, env: { HERMES_HOME: dir, HOME: dir, HERMES_MCP_STATE_DIR: join(dir, 'state'), PATH: '/usr/bin:/bin' } };
}

test('the bin reads $HERMES_HOME/.env: a setting only the file has takes effect', async () => {
  const { dir, env } = home((dir) => `# Hermes' own keys sit here too\nexport HERMES_MCP_ROOTS=${dir}/work\nHERMES_MCP_OPTIONAL_COMPONENTS="memory,lsp,graph,browser,hermes_tools,web_provider"\nHONCHO_API_KEY='${SECRET}'\n`);
  const gateway = await startGatewayBin(MAIN, env);
  let ready: { status: string; components: { roots: { details: { roots: string[] } } } };
  try {
    const res = await fetch(`${gateway.url}/readyz`);
    ready = (await res.json()) as typeof ready;
    assert.equal(res.status, 200, JSON.stringify(ready));
  } finally {
    const { logs } = await gateway.stop();
    const line = logs.find((l) => l.event === 'env_file');
    assert.ok(line, 'the start says it read the file');
    assert.deepEqual((line.from_file as string[]).sort(), ['HERMES_MCP_OPTIONAL_COMPONENTS', 'HERMES_MCP_ROOTS', 'HONCHO_API_KEY']);
    assert.ok(!JSON.stringify(logs).includes(SECRET), 'names only, never a value');
  }
  assert.deepEqual(ready.components.roots.details.roots, [join(dir, 'work')]);
});

test('the process environment wins over the file; the merged environment is what loadConfig reads', () => {
  const { dir, env } = home((dir) => `HERMES_MCP_PORT=4001\nHERMES_MCP_LOG_LEVEL=debug\nHERMES_MCP_ROOTS=${dir}/work\n`);
  const { env: merged, sources } = gatewayEnvironment({ ...env, HERMES_MCP_PORT: '4002' });
  const config = loadConfig(merged);
  assert.equal(config.port, 4002, 'the environment wins');
  assert.equal(config.logLevel, 'debug', 'the file fills what the environment lacks');
  assert.deepEqual(config.roots, [join(dir, 'work')]);
  assert.equal(config.inheritedEnvironment.HERMES_MCP_LOG_LEVEL, 'debug', 'children see the file\'s values too, as under Hermes');
  assert.deepEqual([...sources.fromFile].sort(), ['HERMES_MCP_LOG_LEVEL', 'HERMES_MCP_ROOTS']);
  assert.deepEqual(sources.overridden, ['HERMES_MCP_PORT']);
  // The file is found through HERMES_HOME, so it cannot move the home.
  const moved = home(() => 'HERMES_HOME=/somewhere/else\n');
  assert.throws(() => gatewayEnvironment(moved.env), (e: unknown) => e instanceof ConfigError && /ENV_FILE_INVALID: .*\.env sets HERMES_HOME/.test(e.message));
});

test("for the variables that decide Hermes' Honcho identity the file wins, as Hermes loads it (load_hermes_dotenv override=True)", () => {
  const { env } = home(() => 'HONCHO_BASE_URL=http://127.0.0.1:8000\nHERMES_HONCHO_HOST=work\nHERMES_MCP_PORT=4001\n');
  const { env: merged, sources } = gatewayEnvironment({ ...env, HONCHO_BASE_URL: 'https://process.example', HERMES_HONCHO_HOST: 'home', HONCHO_API_KEY: 'k', HERMES_MCP_PORT: '4002' });
  const config = loadConfig(merged);
  assert.equal(config.honchoEnv.HONCHO_BASE_URL, 'http://127.0.0.1:8000');
  assert.equal(config.honchoEnv.HERMES_HONCHO_HOST, 'work');
  assert.equal(config.honchoEnv.HONCHO_API_KEY, 'k', 'a name the file lacks: the process environment');
  assert.equal(config.port, 4002, 'any other setting: the environment still wins');
  assert.deepEqual([...sources.fileOverrides].sort(), ['HERMES_HONCHO_HOST', 'HONCHO_BASE_URL']);
  assert.deepEqual(sources.overridden, ['HERMES_MCP_PORT']);
  assert.deepEqual([...sources.fromFile].sort(), ['HERMES_HONCHO_HOST', 'HONCHO_BASE_URL']);
});

test('doctor names where each setting came from, never a value', async () => {
  const { dir, env } = home((dir) => `HERMES_MCP_ROOTS=${dir}/work\nHONCHO_API_KEY=${SECRET}\nHERMES_MCP_PORT=4001\n`);
  const expanded = home((dir) => `HERMES_MCP_ROOTS=${dir}/work\nHONCHO_API_KEY=\${HONCHO_TOKEN}\n`);
  const result = await runGatewayBin(MAIN, { ...env, HERMES_MCP_PORT: '4003', HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,graph,browser,hermes_tools,web_provider' }, ['doctor', '--json']);
  const checks = (JSON.parse(result.stdout) as { checks: Array<{ name: string; level: string; reason: string }> }).checks;
  const check = checks.find((c) => c.name === 'environment');
  assert.equal(check?.level, 'ok', result.stdout);
  assert.match(check!.reason, new RegExp(`${join(dir, '.env')}: from the file HERMES_MCP_ROOTS, HONCHO_API_KEY; the environment overrides the file for HERMES_MCP_PORT; from the environment HERMES_HOME, HERMES_MCP_OPTIONAL_COMPONENTS, HERMES_MCP_PORT, HERMES_MCP_STATE_DIR`));
  assert.match(checks.find((c) => c.name === 'configuration')!.reason, /127\.0\.0\.1:4003, roots .*\/work/);
  assert.ok(!result.stdout.includes(SECRET));
  // A ${VAR} Hermes would expand is read literally here: said, not silently different.
  const literal = await runGatewayBin(MAIN, { ...expanded.env, HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,graph,browser,hermes_tools,web_provider' }, ['doctor', '--json']);
  const warned = (JSON.parse(literal.stdout) as { checks: Array<{ name: string; level: string; reason: string }> }).checks.find((c) => c.name === 'environment');
  assert.equal(warned?.level, 'warn');
  assert.match(warned!.reason, /HONCHO_API_KEY hold \$\{\.\.\.\}, which Hermes expands and the gateway reads literally/);
});

test('a group- or world-writable .env is refused by the bin and by doctor, naming the path and chmod', async () => {
  const { dir, env } = home(() => 'HERMES_MCP_ROOTS=/tmp\n', 0o664);
  const start = await runGatewayBin(MAIN, env);
  assert.equal(start.code, 2, start.stderr);
  assert.match(start.stderr, new RegExp(`ENV_FILE_UNSAFE: ${join(dir, '.env')} is group- or world-writable \\(mode 664\\).*run chmod 600 ${join(dir, '.env')}`));
  const doctor = await runGatewayBin(MAIN, env, ['doctor']);
  assert.equal(doctor.code, 1);
  assert.match(doctor.stdout, /^FAIL\s+configuration\s+ENV_FILE_UNSAFE: /m);
});

test('a .env of another user is refused', { skip: process.getuid?.() !== 0 && 'needs root to give the file to another user' }, () => {
  const { dir, env } = home(() => 'HERMES_MCP_ROOTS=/tmp\n');
  chownSync(join(dir, '.env'), 4242, 4242);
  assert.throws(() => gatewayEnvironment(env), (e: unknown) => e instanceof ConfigError && e.message.includes(`ENV_FILE_UNSAFE: ${join(dir, '.env')} belongs to uid 4242`) && e.message.includes(`chown 0 ${join(dir, '.env')}`));
});
