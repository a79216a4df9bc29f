import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { authCli, createStaticToken, HandClient, pkcePair, raw } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// write_file's read-before-overwrite guard for sessionless requests (the 2026-07-28 protocol, as
// ChatGPT calls every tool) counts the reads made with the same credential: one OAuth access token
// (not every token of its client: two authorizations of one connector, or a token and the one its
// refresh issues, are two credentials), or one static token. Real OAuth flows against the gateway's
// own authorization server, real tools over HTTP.

const A = 'hermes.example.test';
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${A}` } });
});
after(async () => {
  await gw.close();
});

/** One authorization of `c` (PKCE, the operator's approval, Continue, the code exchanged): its tokens. */
async function authorize(c: HandClient): Promise<{ access_token: string; refresh_token: string }> {
  const { verifier, challenge } = pkcePair();
  const page = await c.consentPage(await c.authorize({ code_challenge: challenge, code_challenge_method: 'S256' }));
  assert.equal(authCli(gw.home, ['approve', page.code, '--yes']).status, 0);
  const { query } = await c.continueTo(page.path, { csrf: page.csrf, action: 'continue' });
  const res = await c.token({ grant_type: 'authorization_code', code: query!.get('code')!, redirect_uri: c.redirectUri, code_verifier: verifier, resource: c.resource });
  assert.equal(res.status, 200, res.body);
  return JSON.parse(res.body) as { access_token: string; refresh_token: string };
}

/** A sessionless tools/call of `name` through tool_call with `token` (on `g`, else the shared gateway): its structured result. */
async function callTool(token: string, name: string, args: Record<string, unknown>, g: TestGateway = gw): Promise<Record<string, unknown>> {
  const res = await raw(g.url, '/mcp', {
    method: 'POST',
    host: A,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tool_call' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'tool_call', arguments: { calls: [{ name, arguments: args }] }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  });
  assert.equal(res.status, 200, res.body);
  return (JSON.parse(res.body) as { result: { structuredContent: Record<string, unknown> } }).result.structuredContent;
}

test('two access tokens of one OAuth client: a read under one lets only that token overwrite; a refreshed token is a new credential', async () => {
  const c = new HandClient(gw.url, A);
  assert.equal((await c.register()).status, 201);
  const first = await authorize(c);
  c.cookies.clear(); // another browser: a second consent, as a second connection of the same connector
  const second = await authorize(c);
  assert.notEqual(first.access_token, second.access_token);
  const path = join(gw.home, 'notes.txt');
  writeFileSync(path, 'one\n');

  const read = await callTool(first.access_token, 'read_file', { path });
  assert.match(JSON.stringify(read), /one/);
  const refused = await callTool(second.access_token, 'write_file', { path, content: 'stale\n' });
  assert.equal(refused.error, 'FILE_STALE_WRITE', JSON.stringify(refused));
  assert.equal(readFileSync(path, 'utf8'), 'one\n');
  const written = await callTool(first.access_token, 'write_file', { path, content: 'two\n' });
  assert.equal(written.error, undefined, JSON.stringify(written));
  assert.equal(readFileSync(path, 'utf8'), 'two\n');

  // The token a refresh issues has seen nothing yet.
  await callTool(first.access_token, 'read_file', { path });
  const refreshed = await c.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, resource: c.resource });
  assert.equal(refreshed.status, 200, refreshed.body);
  const renewed = (JSON.parse(refreshed.body) as { access_token: string }).access_token;
  assert.equal((await callTool(renewed, 'write_file', { path, content: 'three\n' })).error, 'FILE_STALE_WRITE');
  await callTool(renewed, 'read_file', { path });
  assert.equal((await callTool(renewed, 'write_file', { path, content: 'three\n' })).error, undefined);
  assert.equal(readFileSync(path, 'utf8'), 'three\n');
});

test('a static token is one credential by its name: its reads count for its later requests, not for another token', async () => {
  const alice = createStaticToken(gw.home, 'alice');
  const bob = createStaticToken(gw.home, 'bob');
  const path = join(gw.home, 'static.txt');
  writeFileSync(path, 'one\n');
  await callTool(alice, 'read_file', { path });
  assert.equal((await callTool(bob, 'write_file', { path, content: 'x\n' })).error, 'FILE_STALE_WRITE');
  assert.equal((await callTool(alice, 'write_file', { path, content: 'two\n' })).error, undefined);
  assert.equal(readFileSync(path, 'utf8'), 'two\n');
});

// The ledger has limits of its own (fileStateLedgerTtlSeconds, fileStateMaxLedgers), set here
// through their environment variables; the session-token limits it once borrowed no longer touch it.

test('the session-token limits do not bound the ledger: with one session token allowed for one second, reads still count', async () => {
  const g = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${A}`, HERMES_MCP_MAX_SESSION_TOKENS: '1', HERMES_MCP_SESSION_TOKEN_TTL_SECONDS: '1' } });
  try {
    const alice = createStaticToken(g.home, 'alice');
    const bob = createStaticToken(g.home, 'bob');
    const path = join(g.home, 'kept.txt');
    writeFileSync(path, 'one\n');
    await callTool(alice, 'read_file', { path }, g);
    await callTool(bob, 'read_file', { path }, g);
    await sleep(1500);
    assert.equal((await callTool(alice, 'write_file', { path, content: 'two\n' }, g)).error, undefined);
    assert.equal(readFileSync(path, 'utf8'), 'two\n');
  } finally {
    await g.close();
  }
});

test('fileStateMaxLedgers and fileStateLedgerTtlSeconds bound the ledger: a credential pushed out, or whose read expired, must read again', async () => {
  const g = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${A}`, HERMES_MCP_FILE_STATE_MAX_LEDGERS: '1', HERMES_MCP_FILE_STATE_LEDGER_TTL_SECONDS: '3' } });
  try {
    const alice = createStaticToken(g.home, 'alice');
    const bob = createStaticToken(g.home, 'bob');
    const path = join(g.home, 'bounded.txt');
    writeFileSync(path, 'one\n');
    // Within both limits the read counts.
    await callTool(alice, 'read_file', { path }, g);
    assert.equal((await callTool(alice, 'write_file', { path, content: 'two\n' }, g)).error, undefined);
    // One ledger at most: bob's read pushes alice's out.
    await callTool(alice, 'read_file', { path }, g);
    await callTool(bob, 'read_file', { path }, g);
    assert.equal((await callTool(alice, 'write_file', { path, content: 'three\n' }, g)).error, 'FILE_STALE_WRITE');
    // A read older than the TTL no longer counts.
    await callTool(alice, 'read_file', { path }, g);
    await sleep(3500);
    assert.equal((await callTool(alice, 'write_file', { path, content: 'three\n' }, g)).error, 'FILE_STALE_WRITE');
    assert.equal(readFileSync(path, 'utf8'), 'two\n');
  } finally {
    await g.close();
  }
});
