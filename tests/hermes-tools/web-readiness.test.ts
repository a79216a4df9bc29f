import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { optionalComponents, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { toolServerReadiness, toolServerStandIn, type ToolServerStandIn } from '../helpers/hermes-tools.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// A web backend selected but not working: Hermes' tool server lists web_search and web_extract and
// answers them, with the provider's failure inside a normal result. That is not ready: /readyz
// stays 503 with the nested error as the reason (the tool server itself is fine).

const temp = tempDirs();
let gw: TestGateway;
let standIn: ToolServerStandIn;

before(async () => {
  standIn = toolServerStandIn(temp.make('hmcp-tools-'), '--provider-error');
  gw = await startTestGateway({ env: { HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command, HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('hermes_tools', 'web_provider') } });
});

after(async () => {
  await gw?.close();
  temp.removeAll();
});

test('a nested provider error in a non-error result keeps /readyz 503, with the provider\'s reason', async () => {
  const r = await waitFor(async () => {
    const now = await toolServerReadiness(gw.url);
    return now.web.status !== 'starting' ? now : undefined;
  }, 20_000, 'the web smoke calls');
  assert.equal(r.code, 503);
  assert.equal(r.hermesTools.ready, true, 'the tool server itself is up');
  assert.equal(r.web.ready, false);
  assert.match(r.web.reason ?? '', /web_search: Nous Tool Gateway: not authenticated/);
  assert.match(r.web.reason ?? '', /web_extract: Firecrawl: 401 Unauthorized/);
  assert.match(r.web.action ?? '', /hermes auth add nous/);
  assert.deepEqual(r.reasons.map((x) => x.component), ['web_provider']);
  assert.deepEqual(standIn.calls().map((c) => c.name), ['web_search', 'web_extract'], 'one real call each, no retries');
});
