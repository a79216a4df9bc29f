import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { auditLines, authCli, HandClient, pkcePair, raw } from '../../helpers/auth.js';
import { testClock } from '../../helpers/clock.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// The authorization server refuses bad input with the stable OAuth error codes, grants nothing, and
// leaves an audit line: unregistered or non-https redirects, missing, plain or wrong PKCE, reused or
// expired codes, tokens for another resource, expired and revoked tokens. The flow is played by
// hand over raw HTTP with the public Host (the SDK client never sends such requests).

const A = 'hermes.example.test';
const B = 'second.example.test';
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });

let gw: TestGateway;
let fast: TestGateway;
const fastClock = testClock();
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${A},https://${B}` } });
  // Codes and access tokens that expire after a minute of its clock, which the expiry cases move on
  // (so a slow machine never sees one expire early).
  fast = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${A}` }, limits: { authCodeTtlSeconds: 60, authAccessTokenTtlSeconds: 60 }, now: fastClock.now });
});
after(async () => {
  await gw.close();
  await fast.close();
});

/** Registration, authorization with PKCE, the operator's approval, Continue: the code and its verifier. */
async function authorizedCode(g: TestGateway, host = A, approveArgs: string[] = []): Promise<{ c: HandClient; code: string; verifier: string }> {
  const c = new HandClient(g.url, host);
  assert.equal((await c.register()).status, 201);
  const { verifier, challenge } = pkcePair();
  const page = await c.consentPage(await c.authorize({ code_challenge: challenge, code_challenge_method: 'S256' }));
  assert.equal(authCli(g.home, ['approve', page.code, '--yes', ...approveArgs]).status, 0);
  const { query } = await c.continueTo(page.path, { csrf: page.csrf, action: 'continue' });
  return { c, code: query!.get('code')!, verifier };
}

function exchange(c: HandClient, code: string, verifier: string) {
  return c.token({ grant_type: 'authorization_code', code, redirect_uri: c.redirectUri, code_verifier: verifier, resource: c.resource });
}

function mcp(g: TestGateway, host: string, token: string) {
  return raw(g.url, '/mcp', { method: 'POST', host, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }, body: INIT });
}

const errorOf = (body: string) => (JSON.parse(body) as { error: string }).error;

test('registration: a non-https redirect URI is invalid_redirect_uri and registers nothing', async () => {
  const c = new HandClient(gw.url, A);
  for (const uri of ['http://client.example/cb', 'javascript:alert(1)', 'ftp://client.example/cb']) {
    const res = await c.register([uri]);
    assert.equal(res.status, 400, uri);
    assert.equal(errorOf(res.body), 'invalid_redirect_uri');
  }
  assert.equal((await c.register(['http://127.0.0.1:8123/cb'])).status, 201, 'loopback http is a native client redirect');
  const names = (authCli(gw.home, ['clients', '--json']).json.clients as Array<{ redirect_uris: string[] }>).flatMap((x) => x.redirect_uris);
  assert.ok(!names.some((u) => u.startsWith('http://client.example')));
  assert.ok(auditLines(gw.home).some((l) => l.path === '/oauth/register' && l.status === 400 && l.outcome === 'invalid_redirect_uri'));
});

test('registration: a client asking for a client secret is registered public (no secret is ever issued or stored)', async () => {
  const res = await raw(gw.url, '/oauth/register', {
    method: 'POST',
    host: A,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Secretive', redirect_uris: ['https://client.example/cb'], token_endpoint_auth_method: 'client_secret_post' }),
  });
  assert.equal(res.status, 201, res.body);
  const registered = JSON.parse(res.body) as { token_endpoint_auth_method: string; client_secret?: string };
  assert.equal(registered.token_endpoint_auth_method, 'none');
  assert.equal(registered.client_secret, undefined);
  const garbage = await raw(gw.url, '/oauth/register', { method: 'POST', host: A, headers: { 'content-type': 'application/json' }, body: '[1,2]' });
  assert.deepEqual([garbage.status, errorOf(garbage.body)], [400, 'invalid_client_metadata']);
});

test('authorization: an unregistered redirect URI never redirects; missing or plain PKCE is refused', async () => {
  const c = new HandClient(gw.url, A);
  await c.register();
  const { challenge } = pkcePair();
  const wrongRedirect = await c.authorize({ redirect_uri: 'https://client.example/other', code_challenge: challenge, code_challenge_method: 'S256' });
  assert.equal(wrongRedirect.status, 400);
  assert.equal(wrongRedirect.headers.location, undefined);
  assert.match(wrongRedirect.body, /invalid_redirect_uri/);
  const noPkce = await c.authorize({});
  assert.equal(new URL(String(noPkce.headers.location)).searchParams.get('error'), 'invalid_request');
  const plain = await c.authorize({ code_challenge: challenge, code_challenge_method: 'plain' });
  assert.equal(new URL(String(plain.headers.location)).searchParams.get('error'), 'invalid_request');
  const elsewhere = await c.authorize({ code_challenge: challenge, code_challenge_method: 'S256', resource: 'https://elsewhere.example/mcp' });
  assert.equal(new URL(String(elsewhere.headers.location)).searchParams.get('error'), 'invalid_target');
  const outcomes = auditLines(gw.home).filter((l) => l.path === '/oauth/authorize').map((l) => l.outcome);
  for (const code of ['invalid_redirect_uri', 'invalid_request', 'invalid_target']) assert.ok(outcomes.includes(code), code);
});

test('token: a wrong verifier is invalid_grant; a reused code is invalid_grant and revokes what the code gave', async () => {
  const { c, code, verifier } = await authorizedCode(gw);
  const wrong = await exchange(c, code, pkcePair().verifier);
  assert.deepEqual([wrong.status, errorOf(wrong.body)], [400, 'invalid_grant']);
  const missing = await c.token({ grant_type: 'authorization_code', code, redirect_uri: c.redirectUri, resource: c.resource });
  assert.equal(missing.status, 400);
  const good = await exchange(c, code, verifier);
  assert.equal(good.status, 200, good.body);
  const { access_token } = JSON.parse(good.body) as { access_token: string };
  assert.equal((await mcp(gw, A, access_token)).status, 200);
  const reused = await exchange(c, code, verifier);
  assert.deepEqual([reused.status, errorOf(reused.body)], [400, 'invalid_grant']);
  assert.equal((await mcp(gw, A, access_token)).status, 401, 'code reuse revokes the tokens it issued');
  assert.ok(auditLines(gw.home).some((l) => l.path === '/oauth/token' && l.outcome === 'invalid_grant' && l.client === c.clientId));
});

test('a token minted for one public resource is refused at another', async () => {
  const { c, code, verifier } = await authorizedCode(gw, B);
  const { access_token } = JSON.parse((await exchange(c, code, verifier)).body) as { access_token: string };
  assert.equal((await mcp(gw, B, access_token)).status, 200);
  const elsewhere = await mcp(gw, A, access_token);
  assert.equal(elsewhere.status, 401);
  assert.match(elsewhere.body, /not issued for this resource/);
});

test('revocation: the revocation endpoint and the CLI end tokens at once', async () => {
  const one = await authorizedCode(gw);
  const t1 = JSON.parse((await exchange(one.c, one.code, one.verifier)).body) as { access_token: string; refresh_token: string };
  assert.equal((await one.c.form('/oauth/revoke', { token: t1.access_token, client_id: one.c.clientId })).status, 200);
  assert.equal((await mcp(gw, A, t1.access_token)).status, 401);

  const two = await authorizedCode(gw);
  const t2 = JSON.parse((await exchange(two.c, two.code, two.verifier)).body) as { access_token: string; refresh_token: string };
  assert.equal((await mcp(gw, A, t2.access_token)).status, 200);
  const revoked = authCli(gw.home, ['revoke', two.c.clientId, '--json']);
  assert.equal(revoked.json.revoked, 'client');
  assert.equal((await mcp(gw, A, t2.access_token)).status, 401);
  const refresh = await two.c.token({ grant_type: 'refresh_token', refresh_token: t2.refresh_token });
  assert.equal(refresh.status >= 400, true, 'the revoked client cannot refresh');
  assert.ok(!(authCli(gw.home, ['clients', '--json']).json.clients as Array<{ client_id: string }>).some((x) => x.client_id === two.c.clientId));
});

test('expiry: an expired code is invalid_grant; an expired access token is 401', async () => {
  const late = await authorizedCode(fast);
  fastClock.advance(61_000);
  const res = await exchange(late.c, late.code, late.verifier);
  assert.deepEqual([res.status, errorOf(res.body)], [400, 'invalid_grant']);

  const { c, code, verifier } = await authorizedCode(fast);
  const { access_token } = JSON.parse((await exchange(c, code, verifier)).body) as { access_token: string };
  assert.equal((await mcp(fast, A, access_token)).status, 200);
  fastClock.advance(61_000);
  assert.equal((await mcp(fast, A, access_token)).status, 401);
});

test('approve --read-only: the token carries hermes:read, and terminal is refused before it runs', async () => {
  const { c, code, verifier } = await authorizedCode(gw, A, ['--read-only']);
  const tokens = JSON.parse((await exchange(c, code, verifier)).body) as { access_token: string; scope: string };
  assert.equal(tokens.scope.split(' ').includes('hermes:full'), false, tokens.scope);
  const callTool = (name: string, args: Record<string, unknown>) =>
    raw(gw.url, '/mcp', {
      method: 'POST',
      host: A,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tokens.access_token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tool_call' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'tool_call', arguments: { calls: [{ name, arguments: args }] }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
  const refused = JSON.parse((await callTool('terminal', { command: 'true' })).body) as { result: { structuredContent: { error: string; message: string } } };
  assert.equal(refused.result.structuredContent.error, 'SCOPE_INSUFFICIENT');
  assert.match(refused.result.structuredContent.message, /needs the hermes:full scope/);
  const read = JSON.parse((await callTool('read_file', { path: `${gw.home}/SOUL.md` })).body) as { result: { isError?: boolean } };
  assert.notEqual(read.result.isError, true);
  assert.ok(auditLines(gw.home).some((l) => l.client === c.clientId && l.tool === 'terminal' && l.outcome === 'error:SCOPE_INSUFFICIENT'));
});
