import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { toolServerStandIn, type ToolServerStandIn } from '../helpers/hermes-tools.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// Hermes' tool server inherits the gateway's environment (its provider keys are there) but none of
// the gateway's own settings or tokens: no HERMES_MCP_* variable (the worker tag aside, which the
// isolation fallbacks find escapees by), no bridge MCP_AUTH_TOKEN, no NODE_OPTIONS.

const temp = tempDirs();
let gw: TestGateway;
let standIn: ToolServerStandIn;

before(async () => {
  // The gateway's own environment (what the service would run with), which children inherit.
  process.env.HERMES_MCP_LEAK_PROBE_SECRET = 'gateway-only-secret';
  process.env.MCP_AUTH_TOKEN = 'a'.repeat(64);
  process.env.LEAK_PROBE_PROVIDER_API_KEY = 'provider-key';
  standIn = toolServerStandIn(temp.make('hmcp-tools-'));
  gw = await startTestGateway({ env: { HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command } });
});

after(async () => {
  await gw?.close();
  temp.removeAll();
});

test("the tool server gets the gateway's environment without its settings and tokens", async () => {
  const start = await waitFor(() => standIn.starts()[0], 10_000, 'the tool server started');
  const names = start.envNames;
  assert.ok(names.includes('LEAK_PROBE_PROVIDER_API_KEY'), 'a provider key is inherited');
  assert.ok(names.includes('PATH'));
  assert.equal(start.env.HERMES_HOME, gw.home);
  for (const name of ['HERMES_MCP_LEAK_PROBE_SECRET', 'MCP_AUTH_TOKEN', 'NODE_OPTIONS']) assert.equal(names.includes(name), false, name);
  assert.deepEqual(names.filter((n) => n.startsWith('HERMES_MCP_') && n !== 'HERMES_MCP_WORKER_TAG'), []);
});
