import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startHeaderForwarder, type HeaderForwarder } from '../../scripts/header-forwarder.js';
import { auditLines, createStaticToken } from '../helpers/auth.js';
import { call, connect, ERAS, rawPost, startTestGateway, type TestGateway } from '../helpers/gateway.js';

// The authenticated conformance run (scripts/conformance.ts) reaches a gateway with
// HERMES_MCP_AUTH=on through a forwarder that adds a static token, since the suites cannot send a
// header. This holds that path to what the suites need: a client that sends no credential gets
// through in both eras, the credential is the named token, and without the forwarder it is 401.

let gw: TestGateway;
let forwarder: HeaderForwarder;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_AUTH: 'on' } });
  forwarder = await startHeaderForwarder(gw.port, `Bearer ${createStaticToken(gw.home, 'conformance')}`);
});
after(async () => {
  await forwarder.close();
  await gw.close();
});

test('a client without a credential works in both eras through the forwarder, and only through it', async () => {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  assert.equal((await rawPost(gw.mcpUrl, init)).status, 401);
  for (const era of ERAS) {
    const client = await connect(`${forwarder.url}/mcp`, era);
    const { isError, data } = await call(client, 'tool_search', { queries: ['terminal'] });
    assert.equal(isError, false, JSON.stringify(data));
    await client.close();
  }
  assert.ok(auditLines(gw.home).some((l) => l.client === 'conformance' && l.tool === 'tool_search' && l.outcome === 'ok'));
});

test('the Host the client sent is passed on, so DNS-rebinding protection still applies behind it', async () => {
  const { rawHttp } = await import('../helpers/gateway.js');
  const res = await rawHttp(`${forwarder.url}/mcp`, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 403);
});
