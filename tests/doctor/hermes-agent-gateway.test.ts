import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { makeFakeSystemctl } from '../helpers/fake-systemctl.js';
import { runGatewayBin } from '../helpers/gateway-bin.js';
import { hermes, makeHermesHome, startEgressTrap, type EgressTrap } from '../helpers/hermes.js';
import { freePort } from '../helpers/nginx.js';
import { realToolsHome, SMOKE_PAGE } from '../helpers/real-hermes-tools.js';
import { tempDirs } from '../helpers/temp.js';
import { startFirecrawlStandin } from '../fixtures/firecrawl-standin.js';
import { processesWithHome } from '../helpers/procfs.js';

// doctor's hermes_agent line against the real Hermes Agent of the pinned venv: the version its
// interpreter reports, the tool server's MCP serverInfo (the mcp package's: FastMCP's version on mcp 1.x, none on 2.x) and
// what it exposes of the allowlist, each compared with what that venv itself says; and the same
// line, with its stable code and fix, when the interpreter is missing, is a Python without Hermes,
// or hangs. Every home is made by Hermes' own config code; Hermes' outbound HTTP goes to a trap
// that refuses it (and the test keeps it empty); nothing doctor starts outlives it.

const MAIN = join(packageRoot(), 'dist', 'bin', 'gateway.js');
const temp = tempDirs();
let trap: EgressTrap;
before(async () => (trap = await startEgressTrap()));
after(async () => {
  await trap.close();
  temp.removeAll();
});

type Check = { name: string; level: string; reason: string; fix?: string };
const OPTIONAL = 'memory,lsp,graph,browser,web_provider';

/**
 * Doctor's environment for `home`, by default a Hermes home made by Hermes with no web backend (so
 * the web smoke calls, whose default page is example.com, never run): none configured, and Hermes
 * 0.22's keyless free tier off (`web.keyless_fallback`, agent/web_search_registry.py), through which
 * that Hermes otherwise serves web_search and web_extract with no backend configured.
 */
function setUp(extra: Record<string, string> = {}, made?: string): { home: string; env: Record<string, string> } {
  const dir = temp.make('hmcp-doctor-hermes-');
  const home = made ?? makeHermesHome(join(dir, 'home'), { config: { model: { context_length: 131072 }, security: { tirith_enabled: false }, web: { keyless_fallback: false } } });
  const systemctl = makeFakeSystemctl(dir);
  mkdirSync(join(dir, 'state'), { mode: 0o700 });
  mkdirSync(join(dir, 'user'));
  const env = {
    HERMES_HOME: home,
    HOME: join(dir, 'user'),
    HERMES_MCP_ROOTS: home,
    HERMES_MCP_STATE_DIR: join(dir, 'state'),
    PATH: `${systemctl.bin}:/usr/bin:/bin`,
    LANG: 'C.UTF-8',
    CAMOFOX_URL: 'http://127.0.0.1:9',
    HERMES_MCP_OPTIONAL_COMPONENTS: OPTIONAL,
    ...trap.env,
    ...extra,
  };
  return { home, env };
}

async function doctor(env: Record<string, string>): Promise<{ code: number | null; checks: Check[]; ms: number }> {
  const started = performance.now();
  const result = await runGatewayBin(MAIN, env, ['doctor', '--json']);
  assert.ok(result.stdout.trim().startsWith('{'), `doctor printed no JSON: ${result.stdout}${result.stderr}`);
  return { code: result.code, checks: (JSON.parse(result.stdout) as { checks: Check[] }).checks, ms: performance.now() - started };
}

const find = (checks: Check[], name: string): Check => {
  const check = checks.find((c) => c.name === name);
  assert.ok(check, `${name} in ${JSON.stringify(checks, null, 1)}`);
  return check;
};


/** What the venv itself says: hermes_cli's version and release date, the mcp package's version, and its Python's. */
function venvFacts(): { version: string; release: string; mcp: string; python: string } {
  const r = spawnSync(hermes().python, ['-c', 'import json, platform, hermes_cli, importlib.metadata as m; print(json.dumps([hermes_cli.__version__, hermes_cli.__release_date__, m.version("mcp"), platform.python_version()]))'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [version, release, mcp, python] = JSON.parse(r.stdout) as [string, string, string, string];
  return { version, release, mcp, python };
}

/** How doctor names the pinned Hermes: its version and release date, read from its installed distribution, and its interpreter. */
function found(facts: { version: string; release: string; python: string }): string {
  return `Hermes Agent ${facts.version} (${facts.release}), from its distribution ${hermes().distribution}, at ${hermes().python} (Python ${facts.python})`;
}

test("the real Hermes: hermes_agent names its version, the tool server's serverInfo, and what it exposes and lacks of the allowlist", async () => {
  const facts = venvFacts();
  assert.equal(facts.version, hermes().version, 'the venv holds the pinned Hermes');
  const { home, env } = setUp({ HERMES_AGENT_PYTHON: hermes().python });
  const { code, checks } = await doctor(env);
  const agent = find(checks, 'hermes_agent');
  assert.equal(agent.level, 'ok', JSON.stringify(agent));
  assert.ok(agent.reason.startsWith(`${found(facts)}, supported (>=0.19.0,<0.24); `), agent.reason);
  // mcp 1.x FastMCP("hermes-tools") answers initialize with its own name and the mcp package's
  // version; mcp 2.x MCPServer (Hermes 0.22.2) with the name and an empty version.
  const info = Number(facts.mcp.split('.')[0]) >= 2 ? 'serverInfo hermes-tools (no version)' : `serverInfo hermes-tools ${facts.mcp} (FastMCP's: the mcp package's version, not Hermes')`;
  assert.ok(agent.reason.includes(`its tool server (${info})`), agent.reason);
  // No web backend and no auxiliary model configured: this Hermes' tool server offers none of the
  // five allowlisted tools (it lists its browser and skill tools, which the gateway serves natively).
  assert.match(agent.reason, /lists (\d+) tool\(s\); of the allowlisted ones it exposes none, lacks web_search, web_extract, vision_analyze, image_generate, video_analyze$/);
  const tools = find(checks, 'hermes_tools');
  assert.equal(tools.level, 'warn');
  assert.match(tools.reason, /^degraded: Hermes' tool server does not offer web_search, web_extract, vision_analyze, image_generate, video_analyze/);
  // The tool server's start wrote state.db with Hermes' async delegation table only (0.19.0), or no
  // state.db (0.22.2): either way no sessions yet, not a broken database.
  assert.notEqual(find(checks, 'session_db').level, 'fail', JSON.stringify(find(checks, 'session_db')));
  assert.equal(code, 0, JSON.stringify(checks.filter((c) => c.level === 'fail')));
  assert.deepEqual(processesWithHome(home), [], 'no tool server outlives doctor');
  assert.deepEqual(trap.attempts, [], 'Hermes tried no outbound request');
});

test('the real Hermes with its web, vision and image providers configured (all on loopback): hermes_agent shows them exposed, only video_analyze lacking', async () => {
  const facts = venvFacts();
  const firecrawl = await startFirecrawlStandin();
  try {
    const dir = temp.make('hmcp-doctor-providers-');
    // Vision through the main model (a custom OpenAI-compatible provider), images through Hermes'
    // OpenAI backend: both on a loopback port nothing listens on; doctor lists tools, it calls none of them.
    const provider = `http://127.0.0.1:${await freePort()}/v1`;
    const home = realToolsHome(dir, firecrawl.url, { config: { model: { provider: 'custom', base_url: provider, default: 'standin-model', context_length: 131072 }, image_gen: { provider: 'openai' } } });
    const { env } = setUp({ HERMES_AGENT_PYTHON: hermes().python, HERMES_MCP_WEB_SMOKE_URL: SMOKE_PAGE, OPENAI_API_KEY: 'sk-standin-never-sent', OPENAI_BASE_URL: provider }, home);
    const { checks } = await doctor(env);
    const agent = find(checks, 'hermes_agent');
    assert.equal(agent.level, 'ok', JSON.stringify(agent));
    assert.ok(agent.reason.startsWith(`${found(facts)}, supported (>=0.19.0,<0.24); `), agent.reason);
    assert.match(agent.reason, /of the allowlisted ones it exposes web_search, web_extract, vision_analyze, image_generate, lacks video_analyze$/);
    assert.match(find(checks, 'hermes_tools').reason, /^degraded: Hermes' tool server does not offer video_analyze$/);
    assert.deepEqual(processesWithHome(home), []);
    assert.deepEqual(trap.attempts, [], 'Hermes tried no outbound request');
  } finally {
    await firecrawl.close();
  }
});

test('no Hermes interpreter: HERMES_AGENT_NOT_INSTALLED, a failure when the tool server is required, a warning when it is optional', async () => {
  const { home, env } = setUp({ HERMES_AGENT_PYTHON: join(temp.make('hmcp-nohermes-'), 'venv', 'bin', 'python') });
  const required = await doctor(env);
  const agent = find(required.checks, 'hermes_agent');
  assert.equal(agent.level, 'fail');
  assert.match(agent.reason, /^HERMES_AGENT_NOT_INSTALLED: the Hermes interpreter \S+ \(HERMES_AGENT_PYTHON\) does not exist or is not executable; its tool server is not installed/);
  assert.match(agent.fix ?? '', /HERMES_AGENT_PYTHON/);
  assert.equal(required.code, 1);
  const optional = await doctor({ ...env, HERMES_MCP_OPTIONAL_COMPONENTS: `${OPTIONAL},hermes_tools` });
  assert.equal(find(optional.checks, 'hermes_agent').level, 'warn');
  assert.equal(optional.code, 0, JSON.stringify(optional.checks.filter((c) => c.level === 'fail')));
  assert.deepEqual(processesWithHome(home), []);
});

test('a Python without Hermes: HERMES_AGENT_NOT_INSTALLED naming the import error, and the tool server failing to start', async () => {
  const python = spawnSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).stdout.trim();
  assert.ok(python, 'a system python3');
  const { env } = setUp({ HERMES_AGENT_PYTHON: python, HERMES_MCP_HERMES_TOOLS_STARTUP_TIMEOUT_SECONDS: '5' });
  const { checks } = await doctor(env);
  const agent = find(checks, 'hermes_agent');
  assert.equal(agent.level, 'fail');
  assert.match(agent.reason, new RegExp(`^HERMES_AGENT_NOT_INSTALLED: ${python.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} has no Hermes Agent \\(ModuleNotFoundError: No module named 'hermes_cli'\\); its tool server is not serving`));
  assert.equal(find(checks, 'hermes_tools').level, 'fail');
});

test('an interpreter that never answers: HERMES_AGENT_VERSION_UNKNOWN within hermesAgentVersionTimeoutSeconds', async () => {
  // A stand-in for a hung interpreter (real Hermes does not hang on demand): it sleeps, as its only process.
  const dir = temp.make('hmcp-hung-');
  const python = join(dir, 'python');
  writeFileSync(python, '#!/bin/sh\nexec sleep 60\n');
  chmodSync(python, 0o755);
  const { home, env } = setUp({ HERMES_AGENT_PYTHON: python, HERMES_MCP_HERMES_AGENT_VERSION_TIMEOUT_SECONDS: '1', HERMES_MCP_HERMES_TOOLS_STARTUP_TIMEOUT_SECONDS: '2', HERMES_MCP_OPTIONAL_COMPONENTS: `${OPTIONAL},hermes_tools` });
  const { checks, ms } = await doctor(env);
  const agent = find(checks, 'hermes_agent');
  assert.equal(agent.level, 'warn');
  assert.match(agent.reason, /^HERMES_AGENT_VERSION_UNKNOWN: \S+ did not say which Hermes Agent it has within 1 s \(hermesAgentVersionTimeoutSeconds\)/);
  assert.ok(ms < 30_000, `doctor took ${ms} ms`);
  assert.deepEqual(processesWithHome(home), []);
});
