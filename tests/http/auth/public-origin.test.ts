import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Hono } from 'hono';
import { ConfigError, loadConfig } from '../../../supervisor/platform/config.js';
import { originGuard } from '../../../supervisor/http/auth/middleware.js';
import { PublicOrigin } from '../../../supervisor/platform/settings/public-origin.js';
import { auditLines, raw } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// HERMES_MCP_PUBLIC_URL: the public name is accepted beside loopback, every other name is still
// refused; X-Forwarded-* only from a loopback peer; a public URL means a credential on every /mcp
// request whatever the Host; readiness details and metrics never through the public name.

const PUBLIC = 'hermes.example.test';
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${PUBLIC}` } });
});
after(() => gw.close());

test('a malformed or unsafe public URL refuses startup with a message naming the variable', () => {
  for (const value of ['http://hermes.example.test', 'https://hermes.example.test/prefix', 'not a url', 'https://localhost', 'https://a.example/?x=1']) {
    assert.throws(() => loadConfig({ HERMES_MCP_PUBLIC_URL: value }), (e: Error) => e instanceof ConfigError && /HERMES_MCP_PUBLIC_URL/.test(e.message), value);
  }
  assert.throws(() => loadConfig({ HERMES_MCP_PUBLIC_URL: `https://${PUBLIC}`, HERMES_MCP_AUTH: 'off' }), /never served without authentication/);
  assert.throws(() => loadConfig({ HERMES_MCP_OAUTH: 'on' }), /needs HERMES_MCP_PUBLIC_URL/);
  const ok = loadConfig({ HERMES_MCP_PUBLIC_URL: `https://${PUBLIC}, https://other.example.test:8443` });
  assert.deepEqual(ok.auth.publicUrls.map((u) => u.origin), [`https://${PUBLIC}`, 'https://other.example.test:8443']);
  assert.equal(ok.auth.required, true);
  assert.equal(ok.auth.oauth, true);
});

test('the public Host and ChatGPT\'s Origin reach authentication (401 with resource metadata), not the Host check', async () => {
  const res = await raw(gw.url, '/mcp', { method: 'POST', host: PUBLIC, headers: { ...MCP_HEADERS, origin: 'https://chatgpt.com' }, body: INIT });
  assert.equal(res.status, 401);
  assert.match(String(res.headers['www-authenticate']), new RegExp(`^Bearer .*resource_metadata="https://${PUBLIC}/.well-known/oauth-protected-resource/mcp"`));
  assert.match(String(res.headers['www-authenticate']), /scope="hermes:read hermes:full"/);
});

test('a forwarder that rewrites Host to loopback gets no pass: 401 without a credential', async () => {
  const res = await raw(gw.url, '/mcp', { method: 'POST', host: `127.0.0.1:${gw.port}`, headers: MCP_HEADERS, body: INIT });
  assert.equal(res.status, 401);
});

test('any other Host, Origin or forwarded Host is refused 403 and nothing is served', async () => {
  for (const [host, headers] of [
    ['evil.example', {}],
    [PUBLIC, { origin: 'https://evil.example' }],
    [PUBLIC, { origin: 'null' }],
    [PUBLIC, { 'x-forwarded-host': 'evil.example' }],
  ] as Array<[string, Record<string, string>]>) {
    const res = await raw(gw.url, '/mcp', { method: 'POST', host, headers: { ...MCP_HEADERS, ...headers }, body: INIT });
    assert.equal(res.status, 403, `${host} ${JSON.stringify(headers)}`);
    assert.match(res.body, /Invalid (Host|Origin|X-Forwarded-Host)/);
  }
  assert.equal((await raw(gw.url, '/readyz', { host: 'evil.example' })).status, 403);
  const outcomes = auditLines(gw.home).filter((l) => l.status === 403).map((l) => l.outcome);
  for (const kind of ['invalid_host', 'invalid_origin', 'invalid_forwarded_host']) assert.ok(outcomes.includes(`forbidden:${kind}`), kind);
});

test('readiness details and metrics only for the local operator; through the public name a bare status', async () => {
  const local = JSON.parse((await raw(gw.url, '/readyz', { host: `127.0.0.1:${gw.port}` })).body) as Record<string, unknown>;
  assert.ok(local.components, 'the local operator sees the components');
  for (const headers of [{}, { 'x-forwarded-for': '198.51.100.4' }] as Array<Record<string, string>>) {
    const host = Object.keys(headers).length ? `127.0.0.1:${gw.port}` : PUBLIC;
    const ready = JSON.parse((await raw(gw.url, '/readyz', { host, headers })).body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(ready), ['status']);
    const health = JSON.parse((await raw(gw.url, '/healthz', { host, headers })).body) as Record<string, unknown>;
    assert.deepEqual(health, { status: 'ok' });
  }
});

test('X-Forwarded-* from a non-loopback peer is refused before anything runs', async () => {
  const app = new Hono();
  const refused: string[] = [];
  app.use('*', originGuard(new PublicOrigin([new URL(`https://${PUBLIC}`)]), (_c, message) => refused.push(message)));
  app.get('/x', (c) => c.text('served'));
  const fetchFrom = (address: string, headers: Record<string, string>) =>
    app.fetch(new Request(`http://${PUBLIC}/x`, { headers: { host: PUBLIC, ...headers } }), { incoming: { socket: { remoteAddress: address } } });
  for (const forged of [{ 'x-forwarded-for': '127.0.0.1' }, { 'x-forwarded-host': PUBLIC }, { 'x-forwarded-proto': 'https' }, { forwarded: 'for=127.0.0.1' }] as Array<Record<string, string>>) {
    const res = await fetchFrom('203.0.113.7', forged);
    assert.equal(res.status, 403, JSON.stringify(forged));
    assert.match(await res.text(), /accepted only from the local tunnel or proxy/);
  }
  assert.equal(refused.length, 4, 'each refusal is reported for the audit log');
  // The same headers from the local forwarder are fine.
  assert.equal(await (await fetchFrom('127.0.0.1', { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': PUBLIC })).text(), 'served');
});

test('each refused request leaves an audit line without the credential', async () => {
  await raw(gw.url, '/mcp', { method: 'POST', host: PUBLIC, headers: { ...MCP_HEADERS, authorization: 'Bearer not-a-real-token-1234' }, body: INIT });
  const lines = auditLines(gw.home).filter((l) => l.path === '/mcp' && l.status === 401);
  assert.ok(lines.length >= 1);
  assert.ok(lines.every((l) => l.grant === 'none' && l.outcome === 'unauthorized:invalid_token'));
  assert.ok(!JSON.stringify(auditLines(gw.home)).includes('not-a-real-token-1234'));
});
