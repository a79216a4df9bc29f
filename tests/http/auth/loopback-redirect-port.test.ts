import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HandClient, pkcePair } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Every client is registered as a web client, whatever it asks: a redirect URI must match a
// registered one exactly, port included. (A "native" client's loopback redirect would match on any
// port, so any local process listening on another port could receive its codes.)

const HOST = 'hermes.example.test';
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${HOST}` } });
});
after(() => gw.close());

test('a client registering as native with a loopback redirect on one port cannot authorize to another port', async () => {
  const c = new HandClient(gw.url, HOST, 'http://127.0.0.1:8123/cb');
  const reg = await c.request('/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Native', application_type: 'native', redirect_uris: ['http://127.0.0.1:8123/cb'], token_endpoint_auth_method: 'none' }) });
  assert.equal(reg.status, 201, reg.body);
  const body = JSON.parse(reg.body) as { client_id: string; application_type: string };
  assert.equal(body.application_type, 'web');
  c.clientId = body.client_id;
  const { challenge } = pkcePair();
  const same = await c.authorize({ code_challenge: challenge, code_challenge_method: 'S256' });
  assert.match(String(same.headers.location), /\/oauth\/consent\//, 'the registered port works');
  const other = await c.authorize({ code_challenge: challenge, code_challenge_method: 'S256', redirect_uri: 'http://127.0.0.1:9999/cb' });
  assert.equal(other.status, 400, `${other.status} ${String(other.headers.location)}`);
  assert.doesNotMatch(String(other.headers.location ?? ''), /9999/);
});
