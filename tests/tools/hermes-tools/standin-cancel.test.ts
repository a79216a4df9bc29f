import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { abortableToolCall, connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { toolServerStandIn, type ToolServerStandIn } from '../../helpers/hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// A client that goes away cancels its call on Hermes' tool server (MCP notifications/cancelled,
// through the Hermes tools worker) long before the call's budget; the tool server keeps serving.
// Stand-in: real Hermes 0.19.0 reads a cancel only after the call has ended (its FastMCP server
// blocks on each tool), so only a stand-in shows the notification arriving (real-cancel.test.ts has
// what real Hermes does).

const temp = tempDirs();
let gw: TestGateway;
let client: Client;
let standIn: ToolServerStandIn;

before(async () => {
  standIn = toolServerStandIn(temp.make('hmcp-tools-'));
  gw = await startTestGateway({ env: { HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command }, limits: { hermesToolsCallTimeoutSeconds: 30 } });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  temp.removeAll();
});

test('an aborted call is cancelled on the tool server, which keeps serving', async () => {
  const slow = abortableToolCall(gw.mcpUrl, 'web_search', { query: 'slow:20000' });
  await waitFor(() => standIn.calls().some((c) => c.arguments.query === 'slow:20000'), 10_000, 'the call reaching the tool server');
  const abortedAt = Date.now();
  slow.abort();
  assert.equal(await slow.done, 'aborted');
  const cancel = await waitFor(() => standIn.cancels().find((c) => c.arguments.query === 'slow:20000'), 5000, 'the tool server told of the cancel');
  assert.equal(cancel.name, 'web_search');
  assert.ok(cancel.at - abortedAt < 3000, `cancelled ${cancel.at - abortedAt} ms after the abort`);
  const next = await viaBridge(client, 'web_search', { query: 'after the cancel' });
  assert.equal(next.data.success, true);
  assert.equal(standIn.starts().length, 1, 'not restarted');
});
