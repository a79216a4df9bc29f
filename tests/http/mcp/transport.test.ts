import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, rawHttp, rawPost, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Transport-level behaviour a well-behaved SDK client never exercises, sent as raw HTTP.

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const modernHeaders = (method: string, name?: string) => ({
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('HTTP transport', () => {
  let gw: TestGateway;
  let clock = 0;
  before(async () => {
    gw = await startTestGateway({ now: () => Date.now() + clock, limits: { maxRequestBodyBytes: 64 * 1024 } });
  });
  after(async () => gw.close());

  test('a foreign Host is refused (DNS rebinding), loopback names on any port are accepted', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const evil = await rawHttp(gw.mcpUrl, { method: 'POST', headers: { ...headers, host: 'evil.example.com' }, body: INIT });
    assert.equal(evil.status, 403);
    const rebound = await rawHttp(gw.mcpUrl, { method: 'POST', headers: { ...headers, host: 'evil.example.com:' + gw.port }, body: INIT });
    assert.equal(rebound.status, 403);
    const ok = await rawHttp(gw.mcpUrl, { method: 'POST', headers: { ...headers, host: 'localhost:9999' }, body: INIT });
    assert.equal(ok.status, 200);
    const health = await rawHttp(`${gw.url}/healthz`, { headers: { host: 'attacker.test' } });
    assert.equal(health.status, 403, 'health endpoints are protected too');
  });

  test('a foreign Origin is refused; a loopback Origin is accepted', async () => {
    const evil = await rawPost(gw.mcpUrl, INIT, { origin: 'http://evil.example.com' });
    assert.equal(evil.status, 403);
    const ok = await rawPost(gw.mcpUrl, INIT, { origin: 'http://127.0.0.1:5173' });
    assert.equal(ok.status, 200);
  });

  test('an oversized body is refused with 413 before parsing', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(70 * 1024) } });
    const res = await rawPost(gw.mcpUrl, big, modernHeaders('tools/list'));
    assert.equal(res.status, 413);
  });

  test('malformed JSON is a JSON-RPC parse error (-32700)', async () => {
    const res = await rawPost(gw.mcpUrl, '{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32700);
  });

  test('a non-JSON content type is refused with 415', async () => {
    const res = await rawPost(gw.mcpUrl, INIT, { 'content-type': 'text/plain' });
    assert.equal(res.status, 415);
  });

  test('modern era: an unknown method is -32601', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'no/such', params: { _meta: MODERN_META } });
    const res = await rawPost(gw.mcpUrl, body, modernHeaders('no/such'));
    const json = (await res.json()) as { error: { code: number } };
    assert.equal(json.error.code, -32601);
  });

  test('modern era: an Mcp-Method header that disagrees with the body is refused (-32020)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: MODERN_META } });
    const res = await rawPost(gw.mcpUrl, body, modernHeaders('tools/call', 'tool_search'));
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32020);
  });

  test('modern era: server/discover advertises 2026-07-28', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'server/discover', params: { _meta: MODERN_META } });
    const res = await rawPost(gw.mcpUrl, body, modernHeaders('server/discover'));
    assert.equal(res.status, 200);
    const json = (await res.json()) as { result: { supportedVersions: string[] } };
    assert.ok(json.result.supportedVersions.includes('2026-07-28'));
  });

  test('legacy era: an unknown method is -32601 within a session', async () => {
    const init = await rawPost(gw.mcpUrl, INIT);
    const sid = init.headers.get('mcp-session-id')!;
    assert.ok(sid);
    const res = await rawPost(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'no/such' }), {
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    });
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32601);
  });

  test('legacy era: an unknown session id is 404; DELETE ends a session, which then is 404 too', async () => {
    const unknown = await rawPost(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'mcp-session-id': '00000000-0000-4000-8000-000000000000',
      'mcp-protocol-version': '2025-11-25',
    });
    assert.equal(unknown.status, 404);
    const init = await rawPost(gw.mcpUrl, INIT);
    const sid = init.headers.get('mcp-session-id')!;
    const del = await fetch(gw.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
    assert.equal(del.status, 200);
    const after = await rawPost(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), {
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    });
    assert.equal(after.status, 404);
  });

  test('legacy era: an idle session expires and its id then gets 404 (the client re-initializes)', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    try {
      await client.listTools();
      clock += (gw.gateway.config.limits.legacySessionIdleSeconds + 1) * 1000;
      await assert.rejects(client.listTools(), /404|Session not found/);
    } finally {
      clock = 0;
      await client.close().catch(() => {});
    }
  });

  test('GET and DELETE without a session are 405 (no standalone stream in either era)', async () => {
    const get = await fetch(gw.mcpUrl, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const del = await fetch(gw.mcpUrl, { method: 'DELETE' });
    assert.equal(del.status, 405);
  });
});
