import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { loadLimits } from '../../../shared/limits.js';
import { makeBridgeFixture, STANDIN_KEY, type BridgeFixture } from '../../helpers/bridge.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// The bridge profile's edge rules on its own listener: 405, 401 + WWW-Authenticate, 415, 413
// (declared and streamed), 429 + Retry-After once the per-IP bucket (auth failures included) is
// empty, and an audit trail (0600) holding no token, key, header or body.
// Stand-in (Hermes API): the edge rules are under test; many fast task answers, no agent behaviour.

describe('bridge profile edge', () => {
  const temp = tempDirs();
  let fx: BridgeFixture;
  let gw: TestGateway;
  let url: string;
  before(async () => {
    fx = await makeBridgeFixture(temp.make('hmcp-edge-'), { mcpPort: 0 });
    gw = await startTestGateway({ env: fx.env, limits: { bridgeRateLimitPerMinute: 12, bridgeMaxBodyBytes: 1024 } });
    url = `${gw.bridgeUrl}/mcp`;
  });
  after(async () => {
    await gw.close();
    await fx.close();
    temp.removeAll();
  });

  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const post = (body: BodyInit, headers: Record<string, string>, ip: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip, ...headers }, body, duplex: 'half' } as RequestInit);
  const auth = { authorization: '' };

  test('its own listener keeps idle connections as long as the gateway port does (HERMES_MCP_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS)', async () => {
    // fetch's Keep-Alive header is the server's keepAliveTimeout; Node's own default would say 5.
    const res = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    await res.arrayBuffer();
    assert.equal(res.headers.get('keep-alive'), `timeout=${loadLimits({}).httpKeepAliveTimeoutSeconds}`);
  });

  test('405, 401, 415, 413 each come with the documented status', async () => {
    auth.authorization = `Bearer ${fx.token}`;
    const get = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.1' } });
    assert.equal(get.status, 405);
    const none = await post(ping, {}, '203.0.113.1');
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="hermes-mcp-bridge"');
    const wrong = await post(ping, { authorization: `Bearer ${'0'.repeat(64)}` }, '203.0.113.1');
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    assert.equal((await post(ping, { ...auth, 'content-type': 'text/plain' }, '203.0.113.1')).status, 415);
    assert.equal((await post('x'.repeat(2000), auth, '203.0.113.1')).status, 413, 'declared length');
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('['));
        c.enqueue(new TextEncoder().encode(' '.repeat(2000)));
        c.close();
      },
    });
    assert.equal((await post(stream, auth, '203.0.113.1')).status, 413, 'streamed (chunked) body');
    assert.equal((await post(ping, auth, '203.0.113.1')).status, 200);
  });

  test('429 with Retry-After after the bucket empties, failed auth counted; another client is unaffected', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 13 && !limited; i++) {
      const r = await post(ping, { authorization: 'Bearer wrong' }, '198.51.100.7');
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 401);
    }
    assert.ok(limited, 'rate limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await post(ping, auth, '198.51.100.7')).status, 429, 'even with the right token now');
    assert.equal((await post(ping, auth, '198.51.100.8')).status, 200);
  });

  test('client-chosen method and tool names reach the audit log only as known names, else "other"', async () => {
    const send = (ip: string, message: Record<string, unknown>) => post(JSON.stringify({ jsonrpc: '2.0', ...message }), auth, ip);
    await send('192.0.2.71', { id: 1, method: 'SECRET-METHOD-x"y\nz' });
    await send('192.0.2.72', { id: 2, method: 'tools/call', params: { name: 'SECRET-TOOL-NAME', arguments: {} } });
    await send('192.0.2.73', { method: 'notifications/initialized' });
    await send('192.0.2.74', { method: 'notifications/SECRET-NOTE' });
    const text = readFileSync(fx.auditLog, 'utf8');
    assert.ok(!text.includes('SECRET-'), 'no client-chosen name is recorded verbatim');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const at = (ip: string) => lines.find((l) => l.ip === ip)!;
    assert.equal(at('192.0.2.71').rpc_method, 'other');
    assert.equal(at('192.0.2.71').error, 'method_not_found');
    assert.equal(at('192.0.2.72').rpc_method, 'tools/call');
    assert.equal(at('192.0.2.72').tool, 'other');
    assert.equal(at('192.0.2.73').rpc_method, 'notifications/initialized');
    assert.equal(at('192.0.2.74').rpc_method, 'other');
  });

  test('the audit log is 0600 and holds no token, key, header or body', async () => {
    await post(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'hermes_task', arguments: { task: 'TOP-SECRET-TASK-TEXT', mode: 'sync' } } }), auth, '192.0.2.55');
    const text = readFileSync(fx.auditLog, 'utf8');
    assert.equal(statSync(fx.auditLog).mode & 0o777, 0o600);
    for (const secret of [fx.token, STANDIN_KEY, 'TOP-SECRET-TASK-TEXT', 'Bearer', 'authorization', 'x'.repeat(50)]) assert.ok(!text.includes(secret), `audit holds ${secret.slice(0, 12)}`);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const call = lines.find((l) => l.ip === '192.0.2.55')!;
    assert.equal(call.tool, 'hermes_task');
    assert.equal(call.rpc_method, 'tools/call');
    assert.equal(call.status, 200);
    assert.deepEqual(Object.keys(call).sort(), ['duration_ms', 'ip', 'method', 'path', 'rpc_method', 'status', 'tool', 'ts']);
    assert.ok(lines.some((l) => l.status === 401 && l.ip === '203.0.113.1'));
  });
});
