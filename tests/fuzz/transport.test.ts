import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { fuzzParameters } from './settings.js';
import { legacySession, modernRequest, post, replyProblem, rssBytes, toolResult } from './rpc.js';
import { body, headerValue, headers } from './traffic.js';

// Malformed and adversarial MCP traffic of both eras against a live gateway: broken JSON, wrong
// types, huge strings, deep nesting, headers that contradict the body, unknown methods, batches and
// odd Mcp-Session-Id values. Whatever arrives, the gateway answers with a 4xx or a well-formed
// JSON-RPC message (a tool error with a stable code), never a 5xx, and keeps serving.

const RSS_GROWTH_BOUND = 192 * 1024 * 1024;

let gw: TestGateway;
let sessionId: string;
let rssBefore: number;

before(async () => {
  gw = await startTestGateway();
  sessionId = await legacySession(gw.mcpUrl);
  rssBefore = rssBytes();
});
after(async () => {
  await gw?.close();
});

test('any POST body with any MCP headers gets a 4xx or a well-formed JSON-RPC answer, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(body, headers(sessionId), async (text, hdrs) => {
      const reply = await post(gw.mcpUrl, text, hdrs);
      const problem = replyProblem(reply);
      assert.equal(problem, undefined, `${problem}\nrequest headers ${JSON.stringify(hdrs)}\nbody ${text.slice(0, 500)}`);
    }),
    fuzzParameters(4),
  );
});

test('GET, DELETE and other methods with odd session ids are refused with a 4xx', async () => {
  const sid = fc.oneof(headerValue, fc.uuid(), fc.constant('x'.repeat(8192)));
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'), fc.option(sid, { nil: undefined }), async (method, id) => {
      const res = await fetch(gw.mcpUrl, { method, headers: { accept: 'application/json, text/event-stream', ...(id === undefined ? {} : { 'mcp-session-id': id }) } });
      const text = await res.text();
      assert.ok(res.status >= 400 && res.status < 500, `${method} with session id ${String(id).slice(0, 80)}: HTTP ${res.status} ${text.slice(0, 200)}`);
    }),
    fuzzParameters(2),
  );
});

test('a body over the size cap is 413 and unknown methods are JSON-RPC -32601, in both eras', async () => {
  const huge = await post(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(gw.gateway.config.limits.maxRequestBodyBytes) } }));
  assert.equal(huge.status, 413);
  const modern = modernRequest('no/such/method', {});
  const m = await post(gw.mcpUrl, modern.body, modern.headers);
  assert.equal(replyProblem(m), undefined);
  assert.equal((m.messages[0] as { error?: { code: number } }).error?.code, -32601, m.text);
  const legacy = await post(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'no/such/method' }), { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
  assert.equal(replyProblem(legacy), undefined);
  assert.equal((legacy.messages[0] as { error?: { code: number } }).error?.code, -32601, legacy.text);
});

test('afterwards the gateway still serves both eras, logged no unhandled error, and its memory stayed bounded', async () => {
  const list = modernRequest('tools/list', {});
  const modern = await post(gw.mcpUrl, list.body, list.headers);
  assert.equal(modern.status, 200, modern.text);
  assert.equal(((modern.messages[0] as { result: { tools: unknown[] } }).result.tools).length, 6);
  const search = modernRequest('tools/call', { name: 'tool_search', arguments: { queries: ['read a file'] } });
  const found = toolResult(await post(gw.mcpUrl, search.body, search.headers));
  assert.equal(found?.isError, undefined);
  const fresh = await legacySession(gw.mcpUrl);
  const legacy = await post(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), { 'mcp-session-id': fresh, 'mcp-protocol-version': '2025-06-18' });
  assert.equal(legacy.status, 200, legacy.text);
  assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
  const unhandled = gw.logs.filter((l) => l.event === 'http_unhandled_error' || l.level === 50 || l.level === 60);
  assert.deepEqual(unhandled, [], 'no error-level log line');
  const growth = rssBytes() - rssBefore;
  assert.ok(growth < RSS_GROWTH_BOUND, `RSS grew by ${Math.round(growth / 1048576)} MiB (bound ${RSS_GROWTH_BOUND / 1048576} MiB)`);
});
