import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { auditLines, authCli, HandClient, pkcePair, raw } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Consent details: a client that names no resource gets a token for the gateway's /mcp all the
// same; consent audit lines carry the caller's address (as the forwarder reports it); the pending
// approval's interaction uid is stored only as its SHA-256.

const HOST = 'hermes.example.test';
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${HOST}` } });
});
after(() => gw.close());

test('without a resource parameter the granted token still works on /mcp', async () => {
  const c = new HandClient(gw.url, HOST);
  await c.register();
  const { verifier, challenge } = pkcePair();
  const page = await c.consentPage(await c.authorize({ code_challenge: challenge, code_challenge_method: 'S256', resource: undefined }));
  assert.equal(authCli(gw.home, ['approve', page.code, '--yes']).status, 0);
  const { query } = await c.continueTo(page.path, { csrf: page.csrf, action: 'continue' });
  assert.ok(query?.get('code'), String(query));
  const tokens = await c.token({ grant_type: 'authorization_code', code: query!.get('code')!, redirect_uri: c.redirectUri, code_verifier: verifier });
  assert.equal(tokens.status, 200, tokens.body);
  const { access_token } = JSON.parse(tokens.body) as { access_token: string };
  const mcp = await raw(gw.url, '/mcp', { method: 'POST', host: HOST, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${access_token}` }, body: INIT });
  assert.equal(mcp.status, 200, mcp.body);
});

test('consent audit lines carry the caller address; the stored uid is a hash', async () => {
  const c = new HandClient(gw.url, HOST);
  await c.register();
  const location = String((await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })).headers.location);
  const path = new URL(location, `https://${HOST}`).pathname;
  const page = await c.request(path, { headers: { 'x-forwarded-for': '203.0.113.7' } });
  assert.equal(page.status, 200);
  const pending = auditLines(gw.home).filter((l) => l.outcome === 'approval_pending' && l.client === c.clientId);
  assert.deepEqual(pending.map((l) => l.ip), ['203.0.113.7']);
  const uid = path.split('/').at(-1)!;
  const db = new Database(join(gw.home, 'gateway-auth.sqlite3'), { readonly: true });
  try {
    const uids = (db.prepare('SELECT uid FROM approvals').all() as Array<{ uid: string }>).map((r) => r.uid);
    assert.ok(uids.length > 0);
    assert.ok(!uids.includes(uid), 'the interaction uid is not stored as itself');
    assert.ok(uids.every((u) => /^[0-9a-f]{64}$/.test(u)));
  } finally {
    db.close();
  }
});
