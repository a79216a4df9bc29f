import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { authCli, HandClient, pkcePair } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// A real browser posts the consent form with the Origin its referrer policy allows: the page says
// `same-origin`, and a browser that still sends `Origin: null` (privacy settings, older engines) is
// let through on the consent routes only, which carry their own CSRF token. Any other foreign
// Origin is refused there as everywhere.

const HOST = 'hermes.example.test';
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${HOST}` } });
});
after(() => gw.close());

async function approvedPage() {
  const c = new HandClient(gw.url, HOST);
  await c.register();
  const page = await c.consentPage(await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
  assert.equal(authCli(gw.home, ['approve', page.code, '--yes']).status, 0);
  return { c, ...page };
}

function post(c: HandClient, path: string, csrf: string, origin: string) {
  return c.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams({ csrf, action: 'continue' }).toString() });
}

test('the consent page asks for a same-origin referrer policy (so the browser sends its Origin)', async () => {
  const c = new HandClient(gw.url, HOST);
  await c.register();
  const location = String((await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })).headers.location);
  const res = await c.request(new URL(location, `https://${HOST}`).pathname);
  assert.equal(res.headers['referrer-policy'], 'same-origin');
});

test('a consent POST with Origin: null or the public origin completes; a foreign origin is refused', async () => {
  for (const origin of ['null', `https://${HOST}`]) {
    const p = await approvedPage();
    const res = await post(p.c, p.path, p.csrf, origin);
    assert.equal(res.status, 303, `${origin}: ${res.status} ${res.body.slice(0, 200)}`);
    assert.match(String(res.headers.location), /\/oauth\/authorize\//);
  }
  const p = await approvedPage();
  const evil = await post(p.c, p.path, p.csrf, 'https://evil.example');
  assert.equal(evil.status, 403);
  assert.match(evil.body, /Invalid Origin/);
});

test('Origin: null stays refused outside the consent form POST', async () => {
  const c = new HandClient(gw.url, HOST);
  const token = await c.request('/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null' }, body: 'grant_type=refresh_token&refresh_token=x' });
  assert.equal(token.status, 403);
});
