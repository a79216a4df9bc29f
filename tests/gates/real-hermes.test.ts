import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFirecrawlStandin, type FirecrawlStandin } from '../fixtures/firecrawl-standin.js';
import { installStateDb } from '../fixtures/hermes-home.js';
import { ALLOW_LOOPBACK_PAGES } from '../helpers/browser.js';
import { hermes, startEgressTrap, type EgressTrap } from '../helpers/hermes.js';
import { realToolsHome, SMOKE_PAGE } from '../helpers/real-hermes-tools.js';
import { freePort } from '../helpers/nginx.js';
import { tempDirs } from '../helpers/temp.js';
import { runGates, startGateBackends, startGatewayBin, type GateBackends, type GatewayProcess } from './run.js';

// `npm run gates` against a gateway bin wired to the REAL Hermes Agent of the pinned venv:
// HERMES_AGENT_PYTHON / HERMES_AGENT_SRC name the venv, so Hermes' own tool server
// (agent.transports.hermes_tools_mcp_server) serves web_search / web_extract through Hermes' own
// Firecrawl backend, pointed (FIRECRAWL_API_URL) at a local Firecrawl-compatible stand-in. The
// HERMES_HOME is made by Hermes' config code (model.context_length set, tirith off, loopback
// pages allowed), its state.db by Hermes' SessionDB (installStateDb). Hermes reaches nothing but
// loopback: its outbound HTTP goes to a trap that refuses and records it, and the test keeps that
// record empty.
//
// Stand-ins remain where Hermes cannot produce the backend: Honcho (a hosted memory service),
// Camofox (a separate browser server; the stand-in drives real Chromium), Firecrawl (a hosted web
// API), the code graph (@ttsc/graph, not Hermes) and the language servers (node_modules/.bin).
//
// Expected: every gate passes except
//   - 2b: Hermes 0.19.0's tool server does not serve video_analyze at all (it is not in its
//     EXPOSED_TOOLS, whatever the provider), so the gate is skipped naming it, with vision_analyze
//     and image_generate catalogued;
//   - 7: systemd is not the service manager here (and a test never starts one): skipped.

const dirs = tempDirs();
let backends: GateBackends;
let firecrawl: FirecrawlStandin;
let trap: EgressTrap;
let gateway: GatewayProcess;

before(async () => {
  backends = await startGateBackends(dirs);
  firecrawl = await startFirecrawlStandin();
  trap = await startEgressTrap();
  const dir = dirs.make('hmcp-gates-real-');
  // Vision and image providers, so Hermes' tool server lists vision_analyze and image_generate: the
  // main model a custom OpenAI-compatible provider (Hermes' vision auto chain falls back to it) and
  // Hermes' OpenAI image backend, both on a loopback port nothing listens on. Gate 2b only
  // describes these tools (a call would be a paid provider call), so neither is ever asked.
  const provider = `http://127.0.0.1:${await freePort()}/v1`;
  const home = realToolsHome(dir, firecrawl.url, {
    config: {
      browser: ALLOW_LOOPBACK_PAGES.browser,
      model: { provider: 'custom', base_url: provider, default: 'standin-model', context_length: 131072 },
      image_gen: { provider: 'openai' },
    },
  });
  backends.configureHoncho(home);
  installStateDb(home);
  const userHome = join(dir, 'user-home');
  mkdirSync(userHome);
  gateway = await startGatewayBin({
    ...backends.env,
    HERMES_HOME: home,
    HOME: userHome,
    LANG: 'C.UTF-8',
    HERMES_AGENT_PYTHON: hermes().python,
    HERMES_AGENT_SRC: hermes().dir,
    HERMES_MCP_WEB_SMOKE_URL: SMOKE_PAGE,
    HERMES_MCP_HERMES_TOOLS_STARTUP_TIMEOUT_SECONDS: '90',
    // Hermes' OpenAI image backend reads these from its environment (the tool server inherits the gateway's).
    OPENAI_API_KEY: 'sk-standin-never-sent',
    OPENAI_BASE_URL: provider,
    ...trap.env,
  });
});
after(async () => {
  await gateway?.stop();
  await backends?.close();
  await firecrawl?.close();
  await trap?.close();
  dirs.removeAll();
});

test("the gates against the real Hermes: 1-6 pass but 2b (no video_analyze in Hermes 0.19.0's tool server) and 7 (no systemd) are skipped", async (t) => {
  const { code, report, stderr } = await runGates(gateway.url, ['--browser-url', `${backends.pages.origin}/form.html`]);
  for (const g of report.gates) t.diagnostic(`gate ${g.id} ${g.status}: ${g.name}: ${g.reason}`);
  const shown = `${JSON.stringify(report.gates, null, 2)}\n${stderr}\n${gateway.stderr().slice(-4000)}`;
  const byId = new Map(report.gates.map((g) => [g.id, g]));
  assert.deepEqual([...byId.keys()], ['1', '2a', '2b', '3a', '3b', '4', '5a', '5b', '5c', '5d', '6a', '6b', '7']);
  for (const g of report.gates.filter((g) => g.id !== '2b' && g.id !== '7')) assert.equal(g.status, 'pass', `gate ${g.id} ${g.name}: ${g.reason}\n${shown}`);
  const tools = byId.get('2b')!;
  assert.equal(tools.status, 'skipped', shown);
  assert.match(tools.reason, /^Hermes' tool server here does not offer video_analyze \(\/readyz hermes_tools: degraded: Hermes' tool server does not offer video_analyze\); vision_analyze, image_generate catalogued$/);
  assert.equal(byId.get('7')?.status, 'skipped', shown);
  assert.match(byId.get('7')!.reason, /systemd/);
  // 6a's /readyz 200 includes web_provider: the smoke calls went through Hermes' Firecrawl backend to the stand-in.
  const paths = firecrawl.requests.map((r) => `${r.method} ${r.path}`);
  assert.ok(paths.includes('POST /v2/search'), `Hermes' web_search reached the Firecrawl stand-in: ${paths.join(', ')}`);
  assert.ok(paths.includes('POST /v2/scrape'), `Hermes' web_extract reached the Firecrawl stand-in: ${paths.join(', ')}`);
  assert.equal(report.ok, true);
  assert.equal(code, 0);
  assert.deepEqual(trap.attempts, [], 'Hermes tried no outbound request');
  assert.deepEqual(backends.honcho.conclusions('hermes').filter((c) => c.content.includes('hermes-mcp gate check')), [], 'the gate deleted its conclusion');
});
