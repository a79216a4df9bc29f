import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { auditLines, authCli, HandClient, pkcePair } from '../../helpers/auth.js';
import { makeHermesHome, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// A locked consent request stays locked for the life of its interaction: opening the same consent
// URL again must not start it over with a new code and fresh tries, and the right passphrase
// afterwards grants nothing. Wrong passphrases are also counted across requests: past the
// gateway-wide limit the passphrase is not accepted at all for a while (the CLI still approves).

const HOST = 'hermes.example.test';
const PASSPHRASE = 'correct horse battery staple';
let home: string;
let gw: TestGateway;
before(async () => {
  home = makeHermesHome();
  const file = join(home, 'passphrase');
  writeFileSync(file, `${PASSPHRASE}\n`, { mode: 0o600 });
  gw = await startTestGateway({ home, env: { HERMES_MCP_PUBLIC_URL: `https://${HOST}`, HERMES_MCP_AUTH_PASSPHRASE_FILE: file }, limits: { authConsentMaxTries: 3, authPassphraseMaxFailures: 5 } });
});
after(async () => {
  await gw.close();
  rmSync(home, { recursive: true, force: true });
});

async function pending() {
  const c = new HandClient(gw.url, HOST);
  await c.register();
  const page = await c.consentPage(await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
  return { c, ...page };
}

test('reopening a locked consent URL stays locked: no new code, and the right passphrase grants nothing', async () => {
  const p = await pending();
  for (let i = 1; i <= 3; i++) await p.c.form(p.path, { csrf: p.csrf, action: 'continue', passphrase: `guess ${i}` });
  const again = await p.c.request(p.path);
  assert.doesNotMatch(again.body, /id="approval-code"/, 'no fresh code for a locked request');
  assert.notEqual(again.status, 200);
  const { query } = await p.c.continueTo(p.path, { csrf: p.csrf, action: 'continue', passphrase: PASSPHRASE });
  assert.equal(query?.get('code') ?? null, null, 'no authorization code after the lock');
  assert.equal(authCli(gw.home, ['approve', p.code, '--yes']).status, 4);
});

test('past the gateway-wide limit of wrong passphrases, even the right one is refused for a while (audited); the CLI still approves', async () => {
  // The first test spent 3 of the 5; two more wrong ones, on a different request, trip the limit.
  const a = await pending();
  for (let i = 1; i <= 2; i++) await a.c.form(a.path, { csrf: a.csrf, action: 'continue', passphrase: `other ${i}` });
  assert.ok(auditLines(gw.home).some((l) => l.outcome === 'passphrase_approval_disabled'));
  const b = await pending();
  const refused = await b.c.form(b.path, { csrf: b.csrf, action: 'continue', passphrase: PASSPHRASE });
  assert.equal(refused.status, 200);
  assert.match(refused.body, /Passphrase approval is disabled/);
  assert.equal(refused.headers.location, undefined);
  assert.equal(authCli(gw.home, ['approve', b.code, '--yes']).status, 0);
  assert.ok((await b.c.continueTo(b.path, { csrf: b.csrf, action: 'continue' })).query?.get('code'));
});
