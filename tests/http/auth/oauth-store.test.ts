import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openAuthDatabase, sha256Hex } from '../../../supervisor/http/auth/auth-db.js';
import { listClients, SqliteOidcAdapter, sweepExpired } from '../../../supervisor/http/auth/oauth-store.js';
import { tempDirs } from '../../helpers/temp.js';
import { statSync } from 'node:fs';

// oidc-provider's storage on SQLite: the database is 0600, a record's id (which for tokens and
// codes IS the secret) is stored only as its SHA-256 and never inside the payload, expired rows are
// gone, and registrations nobody approved within a day are swept (registration is open).

const dirs = tempDirs();
after(() => dirs.removeAll());

test('ids are stored hashed, payloads without jti; find restores them; expiry and consumption hold', async () => {
  const file = join(dirs.make('hmcp-authdb-'), 'auth.sqlite3');
  const db = openAuthDatabase(file);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  let now = 1_000_000;
  const tokens = new SqliteOidcAdapter(db, 'AccessToken', () => now);
  const secret = 'the-access-token-value-1234567890';
  await tokens.upsert(secret, { jti: secret, clientId: 'c1', grantId: 'g1', scope: 'hermes:read' }, 60);
  const rows = db.prepare('SELECT id_hash, payload FROM oidc').all() as Array<{ id_hash: string; payload: string }>;
  assert.deepEqual(rows.map((r) => r.id_hash), [sha256Hex(secret)]);
  assert.ok(!rows[0]!.payload.includes(secret), 'the token is not in the payload');
  assert.equal((await tokens.find(secret))?.jti, secret);
  await tokens.consume(secret);
  assert.ok((await tokens.find(secret))?.consumed);
  now += 61_000;
  assert.equal(await tokens.find(secret), undefined, 'expired');
  sweepExpired(db, now);
  assert.equal((db.prepare('SELECT count(*) AS n FROM oidc').get() as { n: number }).n, 0);
  await tokens.upsert('t2', { jti: 't2', clientId: 'c1', grantId: 'g1' }, 600);
  await tokens.revokeByGrantId('g1');
  assert.equal(await tokens.find('t2'), undefined);
  db.close();
});

test('a client never approved is swept after a day; one with a grant stays', async () => {
  const db = openAuthDatabase(join(dirs.make('hmcp-authdb-'), 'auth.sqlite3'));
  const clients = new SqliteOidcAdapter(db, 'Client');
  const grants = new SqliteOidcAdapter(db, 'Grant');
  const day = 24 * 3600;
  const now = 10 * day * 1000;
  await clients.upsert('abandoned', { client_id: 'abandoned', client_name: 'A', redirect_uris: ['https://a.example/cb'], client_id_issued_at: now / 1000 - day - 1 });
  await clients.upsert('fresh', { client_id: 'fresh', client_name: 'F', redirect_uris: ['https://f.example/cb'], client_id_issued_at: now / 1000 - 60 });
  await clients.upsert('approved', { client_id: 'approved', client_name: 'P', redirect_uris: ['https://p.example/cb'], client_id_issued_at: now / 1000 - 2 * day });
  await grants.upsert('g', { jti: 'g', clientId: 'approved', accountId: 'operator' }, 3600 * 24 * 30);
  sweepExpired(db, now);
  assert.deepEqual(listClients(db).map((c) => c.client_id).sort(), ['approved', 'fresh']);
  db.close();
});
