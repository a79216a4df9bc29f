import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { raw } from '../../helpers/auth.js';
import { makeBridgeFixture } from '../../helpers/bridge.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// The hermes-mcp-bridge profile (/bridge/*) has its own token and none of the gateway's
// authentication: with a public URL it is served to the operator on this machine only, never
// through the public name (or a forwarder that rewrites Host to loopback).

const PUBLIC = 'hermes.example.test';
const temp = tempDirs();
after(() => temp.removeAll());

test('with a public URL, /bridge answers on loopback and is refused through the public name', async () => {
  const fx = await makeBridgeFixture(temp.make('hmcp-bridge-public-'));
  const gw = await startTestGateway({ env: { ...fx.env, HERMES_MCP_PUBLIC_URL: `https://${PUBLIC}` } });
  try {
    const local = await raw(gw.url, '/bridge/health', { host: `127.0.0.1:${gw.port}` });
    assert.equal(local.status, 200, local.body);
    for (const [host, headers] of [[PUBLIC, {}], [`127.0.0.1:${gw.port}`, { 'x-forwarded-for': '203.0.113.9' }]] as Array<[string, Record<string, string>]>) {
      const remote = await raw(gw.url, '/bridge/health', { host, headers });
      assert.equal(remote.status, 403, `${host} ${JSON.stringify(headers)}: ${remote.status} ${remote.body}`);
      const mcp = await raw(gw.url, '/bridge/mcp', { method: 'POST', host, headers: { ...headers, 'content-type': 'application/json', authorization: `Bearer ${fx.token}` }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      assert.equal(mcp.status, 403);
    }
  } finally {
    await gw.close();
    await fx.close();
  }
});
