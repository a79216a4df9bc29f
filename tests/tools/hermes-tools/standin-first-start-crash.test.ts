import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, optionalComponents, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { toolServerReadiness, toolServerStandIn, type ToolServerStandIn } from '../../helpers/hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';

// A tool server that crashes on its first start only: the startup tools/list waits through the
// restart backoff (within hermesToolsStartupTimeoutSeconds), so one crash at boot does not cost
// the catalog its web and vision tools until the next gateway restart.
// Stand-in: real Hermes cannot be made to crash on its first start only (a kill mid-call is real-crash.test.ts).

const temp = tempDirs();
const RESTART_MIN_MS = 300;
let gw: TestGateway;
let client: Client;
let standIn: ToolServerStandIn;

before(async () => {
  const dir = temp.make('hmcp-tools-');
  standIn = toolServerStandIn(dir, '--crash-first-start', join(dir, 'crashed-once'));
  gw = await startTestGateway({
    env: { HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command },
    limits: { hermesToolsStartupTimeoutSeconds: 10, hermesToolsRestartMinMs: RESTART_MIN_MS, hermesToolsRestartMaxSeconds: 5 },
  });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  temp.removeAll();
});

test('after a crash at its first start the tool server is restarted and its tools are catalogued', async () => {
  const starts = standIn.starts();
  assert.equal(starts.length, 2, 'the crashed start and the restart');
  assert.ok(starts[1]!.at - starts[0]!.at >= RESTART_MIN_MS - 100, `restarted after ${starts[1]!.at - starts[0]!.at} ms`);
  assert.ok(gw.gateway.catalog.get('web_search'), 'web_search is catalogued');
  const r = await viaBridge(client, 'web_search', { query: 'after a boot crash' });
  assert.equal(r.data.success, true);
  const ready = await toolServerReadiness(gw.url);
  assert.equal(ready.hermesTools.ready, true);
  assert.equal(ready.hermesTools.details?.restarts, 1);
});

test('a tool server that crashes at start with its restart due past the start budget is given up at once, not waited for', async () => {
  const started = performance.now();
  const crashing = await startTestGateway({
    env: { HERMES_MCP_HERMES_TOOLS_COMMAND: `${process.execPath} -e process.exit(4)`, HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('hermes_tools', 'web_provider') },
    limits: { hermesToolsStartupTimeoutSeconds: 10, hermesToolsRestartMinMs: 60_000, hermesToolsRestartMaxSeconds: 60 },
  });
  try {
    const elapsed = performance.now() - started;
    assert.equal(crashing.gateway.catalog.get('web_search'), undefined);
    const ready = await toolServerReadiness(crashing.url);
    assert.equal(ready.hermesTools.status, 'error');
    assert.match(ready.hermesTools.reason ?? '', /restarting after a failed start/);
    assert.ok(elapsed < 8000, `startup took ${elapsed} ms`);
  } finally {
    await crashing.close();
  }
});
