import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { makeBridgeFixture } from '../../helpers/bridge.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// The bridge is optional: an MCP_PORT that cannot be bound (the old hermes-mcp-bridge still holds
// it) must not stop the gateway. It starts, serves /mcp and /bridge/*, and /readyz names the problem.
// Stand-in (Hermes API): the bridge's listener is under test, not the agent.

const temp = tempDirs();
after(() => temp.removeAll());

test('MCP_PORT already taken: the gateway still starts; /readyz bridge.listen_error says why', async () => {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const taken = (holder.address() as AddressInfo).port;
  const fx = await makeBridgeFixture(temp.make('hmcp-listen-'), { mcpPort: taken });
  try {
    const gw = await startTestGateway({ env: fx.env });
    try {
      assert.equal(gw.bridgeUrl, undefined);
      const ready = (await (await fetch(`${gw.url}/readyz`)).json()) as { bridge: Record<string, unknown> };
      assert.equal(ready.bridge.status, 'configured');
      assert.match(String(ready.bridge.listen_error), new RegExp(`127\\.0\\.0\\.1:${taken} \\(MCP_PORT\\): EADDRINUSE`));
      assert.equal((await fetch(`${gw.url}/bridge/health`)).status, 200, 'the /bridge mount serves on');
      assert.ok(gw.logs.some((l) => l.event === 'bridge_listen_failed'), 'logged');
    } finally {
      await gw.close();
    }
  } finally {
    await fx.close();
    await new Promise((resolve) => holder.close(resolve));
  }
});
