import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { auditLines, authCli, HandClient, pkcePair } from '../../helpers/auth.js';
import { testClock } from '../../helpers/clock.js';
import { makeHermesHome, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Consent that nobody on the internet can give themselves: the page waits for the operator (the
// CLI with the code it shows, or the passphrase from a 0600 file). Guessed codes approve nothing,
// the form needs its CSRF token, five wrong passphrases lock the request, pending requests expire,
// and the page shows what is being approved.

const HOST = 'hermes.example.test';
let home: string;
let gw: TestGateway;
let short: TestGateway;
const shortClock = testClock();
before(async () => {
  home = makeHermesHome();
  const passphrase = join(home, 'passphrase');
  writeFileSync(passphrase, 'correct horse battery staple\n', { mode: 0o600 });
  gw = await startTestGateway({ home, env: { HERMES_MCP_PUBLIC_URL: `https://${HOST}`, HERMES_MCP_AUTH_PASSPHRASE_FILE: passphrase } });
  short = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${HOST}` }, limits: { authConsentTtlSeconds: 1 }, now: shortClock.now });
});
after(async () => {
  await gw.close();
  await short.close();
  rmSync(home, { recursive: true, force: true });
});

async function pending(g: TestGateway) {
  const c = new HandClient(g.url, HOST);
  await c.register();
  const page = await c.consentPage(await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
  return { c, ...page };
}

test('the page shows client, redirect URI, scope and the code; no script, never framed', async () => {
  const { html, code, c } = await pending(gw);
  assert.match(html, /Hand client/);
  assert.match(html, /https:\/\/client\.example\/callback/);
  assert.match(html, /hermes:read hermes:full/);
  assert.match(code, /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
  assert.doesNotMatch(html, /<script|https?:\/\/(?!client\.example)[^"<\s]*\.(css|js)/);
  const headers = (await c.request(new URL(String((await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })).headers.location), `https://${HOST}`).pathname)).headers;
  assert.match(String(headers['content-security-policy']), /default-src 'none'.*frame-ancestors 'none'/);
});

test('guessed codes approve nothing (exit 3, audited); Continue then still waits', async () => {
  const p = await pending(gw);
  for (const guess of ['AAAA-AAAA', 'ZZZZ-2222', p.code.replace(/^./, (ch) => (ch === 'A' ? 'B' : 'A'))]) {
    const r = authCli(gw.home, ['approve', guess, '--json']);
    assert.equal(r.status, 3, guess);
    assert.equal(r.json.error, 'unknown_code');
  }
  const { last, query } = await p.c.continueTo(p.path, { csrf: p.csrf, action: 'continue' });
  assert.equal(query, undefined, 'no code reached the client');
  assert.equal(last.status, 200);
  assert.match(last.body, /Not approved yet/);
  assert.equal(auditLines(gw.home).filter((l) => l.outcome === 'approve_unknown_code').length >= 3, true);
  assert.ok(!JSON.stringify(auditLines(gw.home)).includes(p.code), 'the real code is never logged');
});

test('a POST without the page\'s CSRF token is refused and approves nothing', async () => {
  const p = await pending(gw);
  assert.equal(authCli(gw.home, ['approve', p.code, '--yes']).status, 0);
  const forged = await p.c.form(p.path, { csrf: 'forged', action: 'continue' });
  assert.equal(forged.status, 403);
  assert.equal(forged.headers.location, undefined);
  assert.ok(auditLines(gw.home).some((l) => l.outcome === 'csrf_invalid'));
  // The real form still completes.
  assert.ok((await p.c.continueTo(p.path, { csrf: p.csrf, action: 'continue' })).query?.get('code'));
});

test('five wrong passphrases lock the request: access_denied, and the CLI can no longer approve it', async () => {
  const p = await pending(gw);
  for (let i = 1; i <= 4; i++) {
    const res = await p.c.form(p.path, { csrf: p.csrf, action: 'continue', passphrase: `guess ${i}` });
    assert.equal(res.status, 200);
    assert.match(res.body, new RegExp(`Wrong passphrase \\(${5 - i} tries left\\)`));
  }
  const { query } = await p.c.continueTo(p.path, { csrf: p.csrf, action: 'continue', passphrase: 'guess 5' });
  assert.equal(query?.get('error'), 'access_denied');
  assert.equal(query?.get('code'), null);
  assert.notEqual(authCli(gw.home, ['approve', p.code, '--yes']).status, 0);
  assert.equal(auditLines(gw.home).filter((l) => l.outcome === 'passphrase_wrong').length >= 5, true);
  assert.ok(auditLines(gw.home).some((l) => l.outcome === 'approval_locked'));
});

test('the operator passphrase approves; Deny refuses', async () => {
  const p = await pending(gw);
  const ok = await p.c.continueTo(p.path, { csrf: p.csrf, action: 'continue', passphrase: 'correct horse battery staple' });
  assert.ok(ok.query?.get('code'));
  const d = await pending(gw);
  const denied = await d.c.continueTo(d.path, { csrf: d.csrf, action: 'deny' });
  assert.equal(denied.query?.get('error'), 'access_denied');
});

test('a pending request expires: the CLI says so (exit 4) and the page grants nothing', async () => {
  // Made 2 s ago by the gateway's clock, so already 1 s past its 1 s TTL for the CLI (which reads
  // the real clock); then the gateway's clock is back at now, and the page sees it expired too.
  shortClock.advance(-2000);
  const p = await pending(short);
  shortClock.advance(2000);
  const r = authCli(short.home, ['approve', p.code, '--json']);
  assert.deepEqual([r.status, r.json.error], [4, 'expired']);
  const { query, last } = await p.c.continueTo(p.path, { csrf: p.csrf, action: 'continue' });
  assert.equal(query?.get('code') ?? null, null);
  assert.ok(query?.get('error') === 'access_denied' || last.status === 400, `${last.status} ${query}`);
});
