import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openAuthDatabase } from '../../../supervisor/http/auth/auth-db.js';
import { SqliteOidcAdapter } from '../../../supervisor/http/auth/oauth-store.js';
import { authCli, HandClient, pkcePair } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// A refresh token (or code) is consumed once: two requests that both found it unused (the real
// client and a replay racing it) cannot both turn it into tokens.

const dirs = tempDirs();
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test' } });
});
after(async () => {
  await gw.close();
  dirs.removeAll();
});

test('the storage consumes a record once: the second of two consumers is refused invalid_grant', async () => {
  const db = openAuthDatabase(join(dirs.make('hmcp-consume-'), 'auth.sqlite3'));
  const tokens = new SqliteOidcAdapter(db, 'RefreshToken');
  await tokens.upsert('rt-1', { jti: 'rt-1', clientId: 'c', grantId: 'g' }, 600);
  // Both found it unused before either consumed it.
  assert.equal((await tokens.find('rt-1'))?.consumed, undefined);
  assert.equal((await tokens.find('rt-1'))?.consumed, undefined);
  const results = await Promise.allSettled([tokens.consume('rt-1'), tokens.consume('rt-1')]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected']);
  assert.equal(((results[1] as PromiseRejectedResult).reason as { error: string }).error, 'invalid_grant');
  db.close();
});

test('two concurrent refreshes with the same refresh token: exactly one gets tokens', async () => {
  const c = new HandClient(gw.url, 'hermes.example.test');
  await c.register();
  const { verifier, challenge } = pkcePair();
  const page = await c.consentPage(await c.authorize({ code_challenge: challenge, code_challenge_method: 'S256', scope: 'hermes:read offline_access' }));
  assert.equal(authCli(gw.home, ['approve', page.code, '--yes']).status, 0);
  const { query } = await c.continueTo(page.path, { csrf: page.csrf, action: 'continue' });
  const first = await c.token({ grant_type: 'authorization_code', code: query!.get('code')!, redirect_uri: c.redirectUri, code_verifier: verifier, resource: c.resource });
  const { refresh_token } = JSON.parse(first.body) as { refresh_token: string };
  assert.ok(refresh_token, first.body);
  const both = await Promise.all([1, 2].map(() => c.token({ grant_type: 'refresh_token', refresh_token })));
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 400], both.map((r) => r.body).join(' | '));
  assert.equal(JSON.parse(both.find((r) => r.status === 400)!.body).error, 'invalid_grant');
});
