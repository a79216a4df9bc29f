import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';
import { toolServerReadiness, toolServerStandIn, type ToolServerStandIn } from '../helpers/hermes-tools.js';
import { tempDirs } from '../helpers/temp.js';

// A tool server that crashes on its first start only: the startup tools/list waits through the
// restart backoff (within hermesToolsStartupTimeoutSeconds), so one crash at boot does not cost
// the catalog its web and vision tools until the next gateway restart.

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
