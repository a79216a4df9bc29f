import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// What OpenAI's Secure MCP Tunnel client (openai/tunnel-client) does against its configured local
// MCP URL before it reports itself ready, replayed request by request as its Go MCP SDK client
// sends them: POST initialize at 2025-06-18, a standalone GET for server-to-client messages,
// notifications/initialized, DELETE of the session; then its OAuth discovery, which must find
// either valid metadata or a 404 (anything else keeps the tunnel unready). Requests arrive on
// loopback with the gateway's own Host and no Origin.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw.close();
});

const ACCEPTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A JSON-RPC answer, whether it came as JSON or as one SSE event. */
async function jsonRpc(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  const data = res.headers.get('content-type')?.includes('text/event-stream') ? /^data: (.*)$/m.exec(text)?.[1] : text;
  return JSON.parse(data ?? 'null') as Record<string, unknown>;
}

test('the tunnel client start-up probe succeeds: initialize, standalone GET, initialized, DELETE', async () => {
  const init = await fetch(gw.mcpUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tunnel-client', version: '0.0.13' } } }),
  });
  assert.equal(init.status, 200);
  const session = init.headers.get('mcp-session-id');
  assert.ok(session, 'a session id for the 2025 era');
  const answer = await jsonRpc(init);
  const version = (answer.result as { protocolVersion: string }).protocolVersion;
  assert.ok(ACCEPTED_VERSIONS.includes(version), `the tunnel accepts ${ACCEPTED_VERSIONS.join(', ')}; got ${version}`);

  // The Go SDK treats 405 to its standalone GET as "no server-to-client stream" and carries on.
  const get = await fetch(gw.mcpUrl, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': version } });
  assert.equal(get.status, 405);
  await get.body?.cancel();

  const initialized = await fetch(gw.mcpUrl, { method: 'POST', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': version }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  assert.equal(initialized.status, 202);

  const del = await fetch(gw.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': version } });
  assert.ok(del.status >= 200 && del.status < 300, `DELETE answered ${del.status}`);
});

test('its OAuth discovery finds no metadata: 404 on both well-known paths', async () => {
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const res = await fetch(`${gw.url}${path}`);
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
});

test('a tool call relayed by the tunnel (2025 session, no Origin) reaches the tools', async () => {
  const init = await fetch(gw.mcpUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'openai-mcp', version: '1.0.0' } } }),
  });
  const session = init.headers.get('mcp-session-id')!;
  await init.body?.cancel();
  const h = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await (await fetch(gw.mcpUrl, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).body?.cancel();
  const list = await jsonRpc(await fetch(gw.mcpUrl, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) }));
  const names = (list.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
  assert.deepEqual(names, ['tool_search', 'tool_describe', 'tool_call', 'startup_context', 'memory_context', 'skills_list']);
});
