import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  ConfigError,
  defaultJobsDatabase,
  environmentSnapshot,
  hermesExpansionEnvironment,
  hermesHomeOf,
  hermesManagedDirOf,
  isLoopbackHost,
  loadConfig,
} from '../../supervisor/platform/config.js';

// loadConfig's unit test: each named value from its variable, the documented defaults of an empty
// environment, and a ConfigError naming the variable for a value the gateway cannot use.

test('an empty environment gives the documented defaults', () => {
  const c = loadConfig({});
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 3060);
  assert.equal(c.hermesHome, join(homedir(), '.hermes'));
  assert.equal(c.projectDir, c.hermesHome);
  assert.deepEqual(c.roots, [join(homedir(), 'work')]);
  // The spec's limits, from policy/default-limits.json.
  assert.equal(c.limits.maxRequestBodyBytes, 4 * 1024 * 1024);
  assert.equal(c.limits.maxOutputChars, 65536);
  assert.equal(c.limits.sessionTokenTtlSeconds, 900);
  assert.equal(c.limits.maxSessionTokens, 256);
  assert.equal(c.fileAccess, 'roots');
  assert.equal(c.fileStateGuardDisabled, false);
  assert.deepEqual([...c.optionalComponents], []);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.logFormat, 'auto');
  assert.equal(c.jobsDatabase, join(homedir(), '.hermes', 'gateway-jobs.sqlite3'));
  assert.equal(c.hermesManagedDir, '/etc/hermes');
  assert.equal(c.userHome, homedir());
  assert.equal(c.kanbanContext, false);
  assert.equal(c.helperSearchPath, '/usr/bin:/bin');
  assert.deepEqual(c.inheritedEnvironment, {});
  assert.deepEqual(c.hermesDotenv, {});
  assert.deepEqual(c.honchoEnv, { HOME: homedir() });
  assert.deepEqual(c.browserEnv, {});
  assert.deepEqual(c.lsp.trustedRoots, []);
  assert.equal(c.lsp.searchPath, '/usr/bin:/bin');
  assert.ok(c.lsp.servers.length > 0, 'the default language servers');
  assert.deepEqual(c.graphCommand, ['samchon-graph']);
  assert.equal(c.graphTool, 'inspect_code_graph');
  assert.deepEqual(c.graphEnvironment, {});
  assert.equal(c.hermesToolsCommand, undefined);
  assert.equal(c.hermesAgentPython, undefined);
  assert.equal(c.hermesVersion, undefined);
  assert.equal(c.webSmokeUrl, 'https://example.com/');
  assert.equal(c.stateDir, join(tmpdir(), `hermes-mcp-gateway-${process.getuid?.() ?? 'user'}`));
  for (const unset of ['isolation', 'resourcePolicy', 'cgroupRoot', 'cronjobMutations', 'hermesTimezone', 'hermesPlatform', 'bridgeEnvFile'] as const) {
    assert.equal(Object.hasOwn(c, unset), false, unset);
  }
  assert.equal(c.auth.required, false);
});

test('each variable sets its named value', () => {
  const c = loadConfig({
    HERMES_MCP_HOST: '::1',
    HERMES_MCP_PORT: '4100',
    HERMES_HOME: '/srv/hermes',
    HERMES_MCP_PROJECT_DIR: '/srv/project',
    HERMES_MCP_ROOTS: '/srv/a::/srv/b/../c',
    HERMES_MCP_FILE_ACCESS: 'hermes',
    HERMES_DISABLE_FILE_STATE_GUARD: ' 1 ',
    HERMES_MCP_OPTIONAL_COMPONENTS: ' lsp, graph ,,',
    HERMES_MCP_LOG_LEVEL: 'debug',
    HERMES_MCP_LOG_FORMAT: 'json',
    HERMES_MCP_TERMINAL_CWD: '/srv/term',
    HERMES_MCP_PYTHON: '/opt/py/bin/python',
    HERMES_MCP_ISOLATION: 'none',
    HERMES_MCP_RESOURCE_POLICY: '/etc/policy.yaml',
    HERMES_MCP_JOBS_DATABASE: '/srv/jobs.sqlite3',
    HERMES_MCP_CGROUP_ROOT: '/sys/fs/cgroup/x/../y',
    HERMES_MCP_CRONJOB_MUTATIONS: 'create,remove',
    HERMES_TIMEZONE: 'Europe/Paris',
    HOME: '/home/svc',
    HERMES_MANAGED_DIR: ' /srv/managed ',
    HERMES_SESSION_PLATFORM: 'telegram',
    HERMES_KANBAN_BOARD: 'b1',
    PATH: '/opt/bin:/usr/bin',
    HERMES_MCP_LSP_TRUSTED_ROOTS: '/srv/a',
    HERMES_MCP_BRIDGE_ENV: '/srv/bridge.env',
    HERMES_MCP_GRAPH_COMMAND: ' /opt/graph  --stdio ',
    HERMES_MCP_GRAPH_TOOL: 'graph.v2',
    HERMES_MCP_GRAPH_ENV_PASSTHROUGH: 'GRAPH_A, GRAPH_B',
    GRAPH_A: 'a',
    HERMES_MCP_HERMES_TOOLS_COMMAND: 'python3 -m tools',
    HERMES_AGENT_PYTHON: '/opt/hermes/bin/python',
    HERMES_AGENT_SRC: '/opt/hermes-src',
    HERMES_MCP_HERMES_VERSION: '0.22.2',
    HERMES_MCP_WEB_SMOKE_URL: ' http://intranet.local/page ',
    HONCHO_API_KEY: 'k',
    HONCHO_BASE_URL: '',
    CAMOFOX_URL: 'http://127.0.0.1:9377',
    CAMOFOX_API_KEY: '',
  });
  assert.equal(c.host, '::1');
  assert.equal(c.port, 4100);
  assert.equal(c.hermesHome, '/srv/hermes');
  assert.equal(c.projectDir, '/srv/project');
  assert.deepEqual(c.roots, ['/srv/a', '/srv/c']);
  assert.equal(c.fileAccess, 'hermes');
  assert.equal(c.fileStateGuardDisabled, true);
  assert.deepEqual([...c.optionalComponents], ['lsp', 'graph']);
  assert.equal(c.logLevel, 'debug');
  assert.equal(c.logFormat, 'json');
  assert.equal(c.terminalCwd, '/srv/term');
  assert.equal(c.python, '/opt/py/bin/python');
  assert.equal(c.isolation, 'none');
  assert.equal(c.resourcePolicy, '/etc/policy.yaml');
  assert.equal(c.jobsDatabase, '/srv/jobs.sqlite3');
  assert.equal(c.cgroupRoot, '/sys/fs/cgroup/y');
  assert.equal(c.cronjobMutations, 'create,remove');
  assert.equal(c.hermesTimezone, 'Europe/Paris');
  assert.equal(c.userHome, '/home/svc');
  assert.equal(c.hermesManagedDir, '/srv/managed');
  assert.equal(c.hermesPlatform, 'telegram');
  assert.equal(c.kanbanContext, true);
  assert.equal(c.helperSearchPath, '/opt/bin:/usr/bin');
  assert.deepEqual(c.lsp.trustedRoots, ['/srv/a']);
  assert.equal(c.lsp.searchPath, '/opt/bin:/usr/bin');
  assert.equal(c.bridgeEnvFile, '/srv/bridge.env');
  assert.deepEqual(c.graphCommand, ['/opt/graph', '--stdio']);
  assert.equal(c.graphTool, 'graph.v2');
  assert.deepEqual(c.graphEnvironment, { GRAPH_A: 'a' });
  assert.deepEqual(c.hermesToolsCommand, ['python3', '-m', 'tools']);
  assert.equal(c.hermesAgentPython, '/opt/hermes/bin/python');
  assert.equal(c.hermesAgentSource, '/opt/hermes-src');
  assert.equal(c.hermesToolsCwd, '/opt/hermes-src', 'a named source is the cwd even before it exists');
  assert.equal(c.hermesVersion, '0.22.2');
  assert.equal(c.webSmokeUrl, 'http://intranet.local/page');
  assert.deepEqual(c.honchoEnv, { HOME: '/home/svc', HONCHO_API_KEY: 'k' }, 'empty values are not copied');
  assert.deepEqual(c.browserEnv, { CAMOFOX_URL: 'http://127.0.0.1:9377' });
  assert.equal(c.inheritedEnvironment.GRAPH_A, 'a');
  assert.ok(Object.isFrozen(c.inheritedEnvironment));
  assert.equal(c.auth.database, '/srv/hermes/gateway-auth.sqlite3');
});

test('HERMES_PLATFORM wins over HERMES_SESSION_PLATFORM; HERMES_KANBAN_TASK alone marks a Kanban task', () => {
  const c = loadConfig({ HERMES_PLATFORM: 'discord', HERMES_SESSION_PLATFORM: 'telegram', HERMES_KANBAN_TASK: 't1' });
  assert.equal(c.hermesPlatform, 'discord');
  assert.equal(c.kanbanContext, true);
});

test('an empty HERMES_MCP_GRAPH_ENV_PASSTHROUGH passes nothing; unset passes TTSC_GRAPH_BINARY when set', () => {
  assert.deepEqual(loadConfig({ TTSC_GRAPH_BINARY: '/x' }).graphEnvironment, { TTSC_GRAPH_BINARY: '/x' });
  assert.deepEqual(loadConfig({ TTSC_GRAPH_BINARY: '/x', HERMES_MCP_GRAPH_ENV_PASSTHROUGH: '' }).graphEnvironment, {});
});

test("Hermes' checkout: the home's, else a profile root's; the cwd falls back to the home when none exists", () => {
  const base = mkdtempSync(join(tmpdir(), 'hmcp-config-'));
  try {
    const profile = join(base, 'profiles', 'work');
    mkdirSync(profile, { recursive: true });
    const none = loadConfig({ HERMES_HOME: profile });
    assert.equal(none.hermesAgentSource, join(profile, 'hermes-agent'));
    assert.equal(none.hermesToolsCwd, profile);
    mkdirSync(join(base, 'hermes-agent'));
    const shared = loadConfig({ HERMES_HOME: profile });
    assert.equal(shared.hermesAgentSource, join(base, 'hermes-agent'));
    assert.equal(shared.hermesToolsCwd, join(base, 'hermes-agent'));
    mkdirSync(join(profile, 'hermes-agent'));
    assert.equal(loadConfig({ HERMES_HOME: profile }).hermesAgentSource, join(profile, 'hermes-agent'));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a value the gateway cannot use is a ConfigError naming its variable', () => {
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ HERMES_MCP_HOST: '0.0.0.0' }, /^HERMES_MCP_HOST=0\.0\.0\.0 is not a loopback address/],
    [{ HERMES_MCP_PORT: 'abc' }, /^HERMES_MCP_PORT must be an integer 0-65535, got "abc"/],
    [{ HERMES_MCP_PORT: '65536' }, /^HERMES_MCP_PORT /],
    [{ HERMES_MCP_PORT: '1.5' }, /^HERMES_MCP_PORT /],
    [{ HERMES_MCP_PORT: '-1' }, /^HERMES_MCP_PORT /],
    [{ HERMES_MCP_ROOTS: '/srv/a:relative' }, /^HERMES_MCP_ROOTS entries must be absolute paths, got "relative"/],
    [{ HERMES_MCP_LSP_TRUSTED_ROOTS: 'rel' }, /^HERMES_MCP_LSP_TRUSTED_ROOTS entries must be absolute paths/],
    [{ HERMES_MCP_LSP_SERVERS: '/nonexistent/servers.json' }, /^HERMES_MCP_LSP_SERVERS: cannot read/],
    [{ HERMES_MCP_FILE_ACCESS: 'everything' }, /^HERMES_MCP_FILE_ACCESS must be one of roots, hermes, got "everything"/],
    [{ HERMES_MCP_LOG_FORMAT: 'xml' }, /^HERMES_MCP_LOG_FORMAT must be auto, json or pretty, got "xml"/],
    [{ HERMES_MCP_MAX_OUTPUT_CHARS: '-5' }, /positive integer/],
    [{ HERMES_MCP_GRAPH_COMMAND: 'bin/graph' }, /^HERMES_MCP_GRAPH_COMMAND must name its program by a bare name found on PATH or an absolute path, got "bin\/graph"/],
    [{ HERMES_MCP_GRAPH_TOOL: 'two words' }, /^HERMES_MCP_GRAPH_TOOL must be an MCP tool name/],
    [{ HERMES_MCP_GRAPH_ENV_PASSTHROUGH: 'OK,1BAD' }, /^HERMES_MCP_GRAPH_ENV_PASSTHROUGH must list variable names, got "1BAD"/],
    [{ HERMES_MCP_HERMES_TOOLS_COMMAND: './venv/bin/python -m x' }, /^HERMES_MCP_HERMES_TOOLS_COMMAND must name its program/],
    [{ HERMES_MCP_HERMES_VERSION: 'latest' }, /^HERMES_MCP_HERMES_VERSION must be a Hermes Agent version/],
    [{ HERMES_MCP_WEB_SMOKE_URL: 'example.com' }, /^HERMES_MCP_WEB_SMOKE_URL must be an absolute http\(s\) URL/],
    [{ HERMES_MCP_WEB_SMOKE_URL: 'ftp://example.com/' }, /^HERMES_MCP_WEB_SMOKE_URL must be an http\(s\) URL/],
    [{ HERMES_MCP_AUTH: 'off', HERMES_MCP_PUBLIC_URL: 'https://hermes.example.ts.net' }, /^HERMES_MCP_AUTH=off with HERMES_MCP_PUBLIC_URL set/],
  ];
  for (const [env, message] of bad) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && e.name === 'ConfigError' && message.test(e.message),
      JSON.stringify(env),
    );
  }
});

test('overrides apply last, and a non-loopback host is refused from them too', () => {
  assert.equal(loadConfig({ HERMES_MCP_PORT: '4000' }, { port: 0 }).port, 0);
  assert.throws(() => loadConfig({}, { host: '10.0.0.1' }), (e: unknown) => e instanceof ConfigError && e.message === 'host 10.0.0.1 is not a loopback address');
});

test('the loopback check: 127.0.0.0/8, localhost and ::1 only', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ['0.0.0.0', '::', '128.0.0.1', '127.0.0', 'localhost.example.com']) assert.equal(isLoopbackHost(host), false, host);
});

test('the home, managed scope and job database as an environment names them', () => {
  assert.equal(hermesHomeOf({ HERMES_HOME: '' }), join(homedir(), '.hermes'));
  assert.equal(hermesHomeOf({ HERMES_HOME: '~/h' }), join(homedir(), 'h'));
  assert.equal(hermesManagedDirOf({ HERMES_MANAGED_DIR: '  ' }), '/etc/hermes');
  assert.equal(hermesManagedDirOf({ HERMES_MANAGED_DIR: '~' }), homedir());
  assert.equal(defaultJobsDatabase({ HERMES_HOME: '/srv/h' }), '/srv/h/gateway-jobs.sqlite3');
  assert.equal(defaultJobsDatabase({ HERMES_HOME: '/srv/h', HERMES_MCP_JOBS_DATABASE: '~/j.db' }), join(homedir(), 'j.db'));
});

test("the environment snapshot drops undefined entries, keeps __proto__ as a name, and is frozen; Hermes' .env values win for expansion", () => {
  const env: NodeJS.ProcessEnv = { A: '1', B: undefined };
  Object.defineProperty(env, '__proto__', { value: 'x', enumerable: true });
  const snapshot = environmentSnapshot(env);
  assert.deepEqual(Object.keys(snapshot).sort(), ['A', '__proto__']);
  assert.equal(Object.getPrototypeOf(snapshot), Object.prototype);
  assert.ok(Object.isFrozen(snapshot));
  const expansion = hermesExpansionEnvironment({ inheritedEnvironment: { A: '1', C: '3' }, hermesDotenv: { A: 'dotenv' } });
  assert.deepEqual(expansion, { A: 'dotenv', C: '3' });
  assert.ok(Object.isFrozen(expansion));
});
