import assert from 'node:assert/strict';
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cmdline } from '../../helpers/procfs.js';
import { toolServerReadiness } from '../../helpers/hermes-tools.js';
import { hermes } from '../../helpers/hermes.js';
import { startRealTools, type RealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// Hermes' real tool server found where Hermes' installer puts it ($HERMES_HOME/hermes-agent and its
// venv/bin/python; no HERMES_AGENT_* or command setting): started in that source tree with
// `-m agent.transports.hermes_tools_mcp_server`, HERMES_HOME, its redaction on and its console
// quiet, and the gateway's environment less what is the gateway's alone (every HERMES_MCP_*
// variable but the worker tag, the bridge's MCP_AUTH_TOKEN, NODE_OPTIONS). Read from the real
// process's /proc entries.

const temp = tempDirs();
let real: RealTools;

before(async () => {
  real = await startRealTools(temp.make('hmcp-real-install-'), {
    standardInstall: true,
    inherited: { HERMES_MCP_LEAK_PROBE_SECRET: 'gateway-only-secret', MCP_AUTH_TOKEN: 'a'.repeat(64), NODE_OPTIONS: '--max-old-space-size=64', LEAK_PROBE_PROVIDER_API_KEY: 'provider-key' },
  });
});

after(async () => {
  await real?.close();
  temp.removeAll();
});

test('started as a standard install runs it, in its source tree, with its environment rules', async () => {
  const [pid] = real.toolServerPids();
  assert.ok(pid, 'the real tool server runs');
  assert.equal(readlinkSync(`/proc/${pid}/cwd`), join(real.home, 'hermes-agent'));
  assert.match(cmdline(pid), new RegExp(`^${hermes().python} -m agent\\.transports\\.hermes_tools_mcp_server $`));
  const env = new Map(readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  assert.equal(env.get('HERMES_HOME'), real.home);
  assert.equal(env.get('HERMES_REDACT_SECRETS'), 'true');
  assert.equal(env.get('HERMES_QUIET'), '1');
  assert.equal(env.get('HERMES_DISABLE_LAZY_INSTALLS'), '1', 'no pip install on a remote call');
  assert.equal(env.get('LEAK_PROBE_PROVIDER_API_KEY'), 'provider-key', 'a provider key is inherited');
  for (const name of ['HERMES_MCP_LEAK_PROBE_SECRET', 'MCP_AUTH_TOKEN', 'NODE_OPTIONS']) assert.equal(env.has(name), false, name);
  assert.deepEqual([...env.keys()].filter((n) => n.startsWith('HERMES_MCP_') && n !== 'HERMES_MCP_WORKER_TAG'), []);
});

test('it serves: the web tools are catalogued and /readyz.hermes_tools is up', async () => {
  assert.ok(real.gw.gateway.catalog.get('web_search'));
  const r = await waitFor(async () => {
    const now = await toolServerReadiness(real.gw.url);
    return now.web.status !== 'starting' ? now : undefined;
  }, 60_000, 'the smoke calls');
  assert.equal(r.hermesTools.ready, true);
  assert.equal(r.web.ready, true, JSON.stringify(r.web));
});
