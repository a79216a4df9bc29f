import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { ConfigError, hermesExpansionEnvironment, loadConfig } from '../../../supervisor/platform/config.js';
import { gatewayEnvironment } from '../../../supervisor/platform/environment.js';
import { runGatewayBin, startGatewayBin } from '../../helpers/gateway-bin.js';
import { tempDirs } from '../../helpers/temp.js';

// $HERMES_HOME/.env, read by the gateway itself (not only by the systemd unit): the real bin started
// with a setting only the file has uses it, the process environment wins over the file, doctor names
// where each setting came from without showing a value, and a file others could write (or of
// another user) is refused with ENV_FILE_UNSAFE, its path and the command that fixes it. The managed
// scope's .env (HERMES_MANAGED_DIR, else /etc/hermes) is read over it, as Hermes reads it.

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

/** A managed scope directory (as HERMES_MANAGED_DIR names it) holding `.env` with `text`. */
function managedScope(text: string, mode = 0o644): string {
  const dir = temp.make('hmcp-managed-');
  writeFileSync(join(dir, '.env'), text, { mode });
  chmodSync(join(dir, '.env'), mode);
  return dir;
}

test("the managed scope's .env is applied last, as Hermes applies it: over $HERMES_HOME/.env and the environment for the Honcho identity, under the environment otherwise", () => {
  const { env } = home(() => 'HONCHO_BASE_URL=http://127.0.0.1:8000\nHONCHO_API_KEY=home-key\nHERMES_MCP_LOG_LEVEL=debug\nHERMES_TIMEZONE=Europe/Paris\n');
  const scope = managedScope('HONCHO_BASE_URL=http://127.0.0.1:9000\nHERMES_HONCHO_HOST=pinned\nHERMES_TIMEZONE=Asia/Tokyo\nHERMES_MCP_PORT=4005\nHONCHO_ENVIRONMENT=local\n');
  const processEnv = { ...env, HERMES_MANAGED_DIR: scope, HONCHO_BASE_URL: 'https://process.example', HERMES_HONCHO_HOST: 'home', HERMES_MCP_PORT: '4002' };
  const { env: merged, sources, hermesDotenv } = gatewayEnvironment(processEnv);
  const config = loadConfig(merged, { hermesDotenv });
  assert.equal(config.hermesManagedDir, scope);
  assert.equal(config.honchoEnv.HONCHO_BASE_URL, 'http://127.0.0.1:9000', 'managed over the home file and the environment');
  assert.equal(config.honchoEnv.HERMES_HONCHO_HOST, 'pinned', 'managed over the environment');
  assert.equal(config.honchoEnv.HONCHO_ENVIRONMENT, 'local');
  assert.equal(config.honchoEnv.HONCHO_API_KEY, 'home-key', 'a name only the home file sets');
  assert.equal(config.hermesTimezone, 'Asia/Tokyo', 'managed over the home file');
  assert.equal(config.port, 4002, 'any other setting the environment sets: the environment still wins');
  assert.equal(config.logLevel, 'debug');
  assert.deepEqual(sources.managedEnvFile, { path: join(scope, '.env'), loaded: true });
  assert.deepEqual([...sources.fromManagedFile].sort(), ['HERMES_HONCHO_HOST', 'HERMES_TIMEZONE', 'HONCHO_BASE_URL', 'HONCHO_ENVIRONMENT']);
  assert.deepEqual([...sources.managedOverrides].sort(), ['HERMES_HONCHO_HOST', 'HERMES_TIMEZONE', 'HONCHO_BASE_URL']);
  assert.deepEqual(sources.managedOverridden, ['HERMES_MCP_PORT']);
  assert.deepEqual([...sources.fromFile].sort(), ['HERMES_MCP_LOG_LEVEL', 'HONCHO_API_KEY'], 'the home file no longer supplies what the managed one pins');
  assert.deepEqual(sources.fileOverrides, []);
  // What Hermes' own config expands ${VAR} from: both files over the environment, the managed one last.
  assert.equal(hermesExpansionEnvironment(config).HERMES_MCP_PORT, '4005');
  assert.equal(hermesExpansionEnvironment(config).HONCHO_API_KEY, 'home-key');
  assert.equal(hermesExpansionEnvironment(config).HERMES_TIMEZONE, 'Asia/Tokyo');
  // No such directory: no managed scope, nothing read.
  const none = gatewayEnvironment({ ...env, HERMES_MANAGED_DIR: join(scope, 'missing') });
  assert.equal(none.sources.managedEnvFile, undefined);
  assert.equal(loadConfig(none.env).honchoEnv.HONCHO_BASE_URL, 'http://127.0.0.1:8000');
});

test("the managed scope's .env is refused as $HERMES_HOME/.env is (others could write it, another user's), and cannot move the home or the scope", () => {
  const { env } = home(() => 'HERMES_MCP_LOG_LEVEL=debug\n');
  const writable = managedScope('HONCHO_API_KEY=k\n', 0o664);
  assert.throws(() => gatewayEnvironment({ ...env, HERMES_MANAGED_DIR: writable }), (e: unknown) => e instanceof ConfigError && e.message.includes(`ENV_FILE_UNSAFE: ${join(writable, '.env')} is group- or world-writable`));
  const moving = managedScope('HERMES_HOME=/somewhere/else\n');
  assert.throws(() => gatewayEnvironment({ ...env, HERMES_MANAGED_DIR: moving }), (e: unknown) => e instanceof ConfigError && /ENV_FILE_INVALID: .*\.env sets HERMES_HOME/.test(e.message));
  const elsewhere = managedScope(`HERMES_MANAGED_DIR=${writable}\n`);
  assert.throws(() => gatewayEnvironment({ ...env, HERMES_MANAGED_DIR: elsewhere }), (e: unknown) => e instanceof ConfigError && /ENV_FILE_INVALID: .*\.env sets HERMES_MANAGED_DIR/.test(e.message));
  if (process.getuid?.() === 0) {
    const foreign = managedScope('HONCHO_API_KEY=k\n');
    chownSync(join(foreign, '.env'), 4242, 4242);
    assert.throws(() => gatewayEnvironment({ ...env, HERMES_MANAGED_DIR: foreign }), (e: unknown) => e instanceof ConfigError && e.message.includes(`ENV_FILE_UNSAFE: ${join(foreign, '.env')} belongs to uid 4242, neither to the user running the gateway (uid 0) nor to root`));
  }
});

test("the bin and doctor read the managed scope's .env and name what it set, never a value", async () => {
  const { env } = home((dir) => `HERMES_MCP_ROOTS=${dir}/work\nHONCHO_API_KEY=${SECRET}\n`);
  const scope = managedScope(`HONCHO_API_KEY=${SECRET}-managed\nHERMES_MCP_OPTIONAL_COMPONENTS=memory,lsp,graph,browser,hermes_tools,web_provider\n`);
  const gateway = await startGatewayBin(MAIN, { ...env, HERMES_MANAGED_DIR: scope });
  const { logs } = await gateway.stop();
  const line = logs.find((l) => l.event === 'managed_env_file');
  assert.ok(line, JSON.stringify(logs.map((l) => l.event)));
  assert.equal(line.path, join(scope, '.env'));
  assert.deepEqual((line.from_file as string[]).sort(), ['HERMES_MCP_OPTIONAL_COMPONENTS', 'HONCHO_API_KEY']);
  assert.deepEqual(line.overriding, ['HONCHO_API_KEY']);
  assert.ok(!JSON.stringify(logs).includes(SECRET));
  const result = await runGatewayBin(MAIN, { ...env, HERMES_MANAGED_DIR: scope }, ['doctor', '--json']);
  const check = (JSON.parse(result.stdout) as { checks: Array<{ name: string; level: string; reason: string }> }).checks.find((c) => c.name === 'environment');
  assert.match(check!.reason, new RegExp(`the managed scope's ${join(scope, '.env')}: from the file HERMES_MCP_OPTIONAL_COMPONENTS, HONCHO_API_KEY; it overrides the environment or ${join(env.HERMES_HOME!, '.env')} for HONCHO_API_KEY`));
  assert.ok(!result.stdout.includes(SECRET));
});
