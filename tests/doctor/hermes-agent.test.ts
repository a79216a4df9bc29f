import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode } from '../../shared/errors.js';
import { hermesAgentCheck } from '../../supervisor/doctor/hermes-agent.js';
import { loadConfig, type GatewayConfig } from '../../supervisor/platform/config.js';
import type { HermesInstall } from '../../supervisor/platform/hermes/locate.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import type { ToolServerStartup } from '../../supervisor/tools/hermes-tools/index.js';
import { tempDirs } from '../helpers/temp.js';

// doctor's hermes_agent check from what the start found (an install, the tool server's listing),
// made up here: each level, reason and fix. The real Hermes and the gateway bin: hermes-agent-gateway.test.ts.

const dirs = tempDirs();
after(() => dirs.removeAll());

function config(optional = ''): GatewayConfig {
  const home = dirs.make('doctor-hermes-');
  return loadConfig({ PATH: '/usr/bin:/bin', HERMES_HOME: home, HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_OPTIONAL_COMPONENTS: optional });
}

function found(version: string, mcp = '1.9.0'): HermesInstall {
  return {
    state: 'found',
    python: '/h/venv/bin/python',
    pythonFrom: 'HERMES_AGENT_PYTHON',
    facts: { version, versionFrom: 'install stamp', tree: '/h/src', pythonVersion: '3.11.2', mcp },
    release: new HermesRelease(version),
  };
}
const FOUND_TEXT = 'Hermes Agent 0.22.2.post1, from its install stamp in /h/src, at /h/venv/bin/python (Python 3.11.2)';

const listed = (server?: { name: string; version?: string }): ToolServerStartup => ({
  kind: 'listed',
  ...(server ? { server } : {}),
  listed: ['web_search', 'web_extract', 'clarify'],
  served: ['web_search', 'web_extract'],
  missing: ['vision_analyze'],
  unusable: {},
});

test('a supported Hermes whose tool server listed its tools is ok, naming the serverInfo (FastMCP reports the mcp version)', () => {
  const check = hermesAgentCheck(config(), found('0.22.2.post1'), listed({ name: 'hermes-tools', version: '1.9.0' }));
  assert.deepEqual(check, {
    name: 'hermes_agent',
    level: 'ok',
    reason: `${FOUND_TEXT}, supported (>=0.19.0,<0.24); its tool server (serverInfo hermes-tools 1.9.0 (FastMCP's: the mcp package's version, not Hermes')) lists 3 tool(s); of the allowlisted ones it exposes web_search, web_extract, lacks vision_analyze`,
  });
});

test('no serverInfo, no version in it, nothing served and unusable schemas are each said', () => {
  const bare = hermesAgentCheck(config(), found('0.19.0'), { kind: 'listed', listed: [], served: [], missing: ['web_search'], unusable: {} });
  assert.match(bare.reason, /; its tool server \(no serverInfo\) lists 0 tool\(s\); of the allowlisted ones it exposes none, lacks web_search$/);
  const odd = hermesAgentCheck(config(), found('0.19.0'), { kind: 'listed', server: { name: 'x' }, listed: ['a'], served: ['a'], missing: [], unusable: { b: 'no type', c: 'bad' } });
  assert.match(odd.reason, /its tool server \(serverInfo x \(no version\)\) lists 1 tool\(s\); of the allowlisted ones it exposes a, lacks none, and serves b, c with a schema the gateway cannot use$/);
});

test('a supported Hermes whose tool server is not serving fails, or warns where hermes_tools is optional', () => {
  const down: ToolServerStartup = { kind: 'unavailable', status: 'error', reason: 'exit 1' };
  const failing = hermesAgentCheck(config(), found('0.22.2.post1'), down);
  assert.deepEqual(failing, { name: 'hermes_agent', level: 'fail', reason: `${FOUND_TEXT}, supported (>=0.19.0,<0.24); its tool server is not serving (exit 1)`, fix: 'see hermes_tools' });
  assert.equal(hermesAgentCheck(config('hermes_tools'), found('0.22.2.post1'), down).level, 'warn');
  const pending = hermesAgentCheck(config(), found('0.22.2.post1'), { kind: 'pending' });
  assert.match(pending.reason, /; its tool server has not listed its tools$/);
  assert.equal(pending.level, 'fail');
});

test('an unsupported Hermes fails (warns where hermes is optional) whatever its tool server did', () => {
  const check = hermesAgentCheck(config(), found('0.30.0'), listed());
  assert.equal(check.level, 'fail');
  assert.equal(check.fix, 'see hermes');
  assert.match(check.reason, /^Hermes Agent 0\.30\.0, .*, NOT supported: this gateway supports >=0\.19\.0,<0\.24; its tool server/);
  assert.equal(hermesAgentCheck(config('hermes'), found('0.30.0'), listed()).level, 'warn');
});

test('no Hermes: the stable code and reason, the install advice; a failure unless the tool server is optional or serving anyway', () => {
  const missing: HermesInstall = { state: 'not_installed', looked: ['/a'], reason: 'no interpreter with Hermes', release: new HermesRelease(undefined) };
  const notInstalled: ToolServerStartup = { kind: 'unavailable', status: 'not_installed', reason: 'no python' };
  const check = hermesAgentCheck(config(), missing, notInstalled);
  assert.deepEqual(check, {
    name: 'hermes_agent',
    level: 'fail',
    reason: `${ErrorCode.HERMES_AGENT_NOT_INSTALLED}: no interpreter with Hermes; its tool server is not installed (no python)`,
    fix: "install Hermes Agent (Hermes' installer makes $HERMES_HOME/hermes-agent with its venv), or set HERMES_AGENT_PYTHON to its interpreter and HERMES_AGENT_SRC to its source directory",
  });
  assert.equal(hermesAgentCheck(config('hermes_tools'), missing, notInstalled).level, 'warn');
  assert.equal(hermesAgentCheck(config(), missing, listed()).level, 'warn', 'a tool server serving without a Hermes interpreter');
});

test('an unknown version and an interpreter that did not answer have fixes of their own', () => {
  const noVersion: HermesInstall = { state: 'no_version', python: '/p', pythonFrom: 'HERMES_AGENT_PYTHON', tree: '/t', reason: 'no stamp', release: new HermesRelease(undefined) };
  const unknown = hermesAgentCheck(config(), noVersion, listed());
  assert.equal(unknown.level, 'warn');
  assert.equal(unknown.reason.startsWith(`${ErrorCode.HERMES_AGENT_VERSION_UNKNOWN}: no stamp; `), true, unknown.reason);
  assert.equal(unknown.fix, 'reinstall Hermes with its installer (which writes its install stamp), or point HERMES_AGENT_PYTHON at a Hermes that says its version');
  const failed: HermesInstall = { state: 'failed', python: '/p', pythonFrom: 'HERMES_AGENT_PYTHON', code: ErrorCode.HERMES_AGENT_VERSION_UNKNOWN, reason: 'no answer', release: new HermesRelease(undefined) };
  const check = hermesAgentCheck(config(), failed, { kind: 'pending' });
  assert.equal(check.level, 'fail');
  assert.equal(check.reason, `${ErrorCode.HERMES_AGENT_VERSION_UNKNOWN}: no answer; its tool server has not listed its tools`);
  assert.equal(check.fix, 'run /p -c "import hermes_cli" to see what fails, or set HERMES_AGENT_PYTHON to a working Hermes interpreter');
});
