import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { makeBridgeFixture, type BridgeFixture } from '../../helpers/bridge.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// The drop-in bridge profile over real HTTP with a real SDK v2 client, on both mounts: /bridge/mcp
// on the gateway port and /mcp on its own MCP_PORT listener. Stateless (no Mcp-Session-Id), the
// five tools flat in tools/list, notifications 202, batches for the revisions that have them.
// Stand-in (Hermes API): the MCP surface is under test; real-hermes.test.ts runs the tools on real Hermes.

describe('bridge profile (drop-in hermes-mcp-bridge surface)', () => {
  const temp = tempDirs();
  let fx: BridgeFixture;
  let gw: TestGateway;
  before(async () => {
    fx = await makeBridgeFixture(temp.make('hmcp-profile-'), { mcpPort: 0 });
    // Many requests from one loopback client here; the rate limit has its own test (profile-edge).
    gw = await startTestGateway({ env: fx.env, limits: { bridgeRateLimitPerMinute: 10_000 } });
  });
  after(async () => {
    await gw.close();
    await fx.close();
    temp.removeAll();
  });

  const mounts = () => [
    { name: 'gateway port /bridge', mcp: `${gw.url}/bridge/mcp`, health: `${gw.url}/bridge/health` },
    { name: 'own MCP_PORT', mcp: `${gw.bridgeUrl}/mcp`, health: `${gw.bridgeUrl}/health` },
  ];

  async function sdkClient(url: string, mode: 'legacy' | 'auto' = 'legacy'): Promise<Client> {
    const client = new Client({ name: 'bridge-test', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${fx.token}` } } }));
    return client;
  }

  test('the own listener runs on loopback', () => {
    assert.match(gw.bridgeUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  for (const index of [0, 1]) {
    test(`mount ${index}: health, then an SDK client lists the five tools and runs a sync task`, async () => {
      const m = mounts()[index]!;
      const health = (await (await fetch(m.health)).json()) as Record<string, unknown>;
      assert.equal(health.status, 'ok');
      assert.equal(health.service, 'hermes-mcp-bridge');
      assert.equal(health.tools, 5);
      assert.deepEqual(health.agents, { default: 'hermes', count: 1, available: 1 });
      for (const mode of ['legacy', 'auto'] as const) {
        const client = await sdkClient(m.mcp, mode);
        try {
          const { tools } = await client.listTools();
          assert.deepEqual(tools.map((t) => t.name).sort(), ['hermes_files', 'hermes_result', 'hermes_status', 'hermes_task', 'list_agents']);
          const r = (await client.callTool({ name: 'hermes_task', arguments: { task: `hello ${index}`, mode: 'sync', id: `p-${index}-${mode}` } })) as { structuredContent?: Record<string, unknown> };
          assert.equal(r.structuredContent?.status, 'completed');
          const res = (await client.callTool({ name: 'hermes_result', arguments: { id: `p-${index}-${mode}` } })) as { structuredContent?: Record<string, unknown> };
          assert.match(String(res.structuredContent?.summary), /hello/);
        } finally {
          await client.close();
        }
      }
    });
  }

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${fx.token}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  test('stateless: initialize issues no session id; a notification is 202; ping is {}', async () => {
    const url = mounts()[1]!.mcp;
    const init = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    assert.equal(init.status, 200);
    assert.equal(init.headers.get('mcp-session-id'), null);
    const body = (await init.json()) as { result: { protocolVersion: string; serverInfo: { name: string }; capabilities: unknown } };
    assert.equal(body.result.protocolVersion, '2025-03-26');
    assert.equal(body.result.serverInfo.name, 'hermes-mcp-bridge');
    assert.deepEqual(body.result.capabilities, { tools: { listChanged: false } });
    assert.equal((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
    assert.deepEqual(((await (await post(url, { jsonrpc: '2.0', id: 2, method: 'ping' })).json()) as { result: unknown }).result, {});
  });

  test('JSON-RPC errors: -32700 parse, -32600 invalid, -32601 unknown method, -32602 invalid params; tool errors are isError lower-case', async () => {
    const url = mounts()[1]!.mcp;
    const codeOf = async (body: unknown) => ((await (await post(url, body)).json()) as { error?: { code: number } }).error?.code;
    assert.equal(await codeOf('{nope'), -32700);
    assert.equal(await codeOf({ jsonrpc: '1.0', id: 1, method: 'ping' }), -32600);
    assert.equal(await codeOf({ jsonrpc: '2.0', id: 1, method: 'resources/list' }), -32601);
    assert.equal(await codeOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hermes_task', arguments: { task: 'x' } } }), -32602);
    assert.equal(await codeOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope', arguments: {} } }), -32602);
    const r = (await (await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hermes_task', arguments: { task: 'x', mode: 'sync', agent: 'ghost' } } })).json()) as {
      result: { isError: boolean; structuredContent: { error: string; message: string } };
    };
    assert.equal(r.result.isError, true);
    assert.equal(r.result.structuredContent.error, 'unknown_agent');
    // Any spelling of a name that is not registered is unknown_agent (naming the agents), not -32602.
    for (const agent of ['Coder', 'no such agent!']) {
      const u = (await (await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hermes_task', arguments: { task: 'x', mode: 'sync', agent } } })).json()) as {
        result?: { isError: boolean; structuredContent: { error: string; message: string } };
      };
      assert.equal(u.result?.structuredContent.error, 'unknown_agent', `${agent}: ${JSON.stringify(u)}`);
      assert.match(u.result!.structuredContent.message, /registered agents \(hermes\)/);
    }
  });

  test('batches: up to 20 for 2025-03-26 (or no version header), refused over 20 and for 2025-06-18', async () => {
    const url = mounts()[0]!.mcp;
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    const ok = await post(url, [...batch(2), { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    assert.equal(ok.status, 200);
    assert.deepEqual(((await ok.json()) as Array<{ id: number }>).map((r) => r.id), [0, 1]);
    assert.equal((await post(url, batch(20), { 'mcp-protocol-version': '2025-03-26' })).status, 200);
    assert.equal((await post(url, batch(21))).status, 400);
    assert.equal((await post(url, batch(2), { 'mcp-protocol-version': '2025-06-18' })).status, 400);
    assert.equal((await post(url, [{ jsonrpc: '2.0', method: 'notifications/initialized' }])).status, 202);
  });
});
