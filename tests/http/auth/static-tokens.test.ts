import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openAuthDatabase } from '../../../supervisor/http/auth/auth-db.js';
import { assertTokenName, issueStaticToken, listStaticTokens, revokeStaticToken, StaticTokenVerifier, TOKEN_PREFIX } from '../../../supervisor/http/auth/static-tokens.js';
import { tokenDigest } from '../../../supervisor/http/edge/bearer.js';
import { tempDirs } from '../../helpers/temp.js';

// Static tokens on a real credential database: the operator's connection issues, rotates and
// revokes; the gateway's verifier (another connection, as in production) sees each change at once.
// Through a whole gateway (401s, scopes, the CLI): static-tokens-gateway.test.ts.

const dirs = tempDirs();
after(() => dirs.removeAll());

function databases(): { cli: ReturnType<typeof openAuthDatabase>; gateway: ReturnType<typeof openAuthDatabase> } {
  const file = join(dirs.make('hmcp-static-'), 'auth.sqlite3');
  const cli = openAuthDatabase(file);
  return { cli, gateway: openAuthDatabase(file) };
}

test('token names: 1-64 of letters, digits, _ . -, starting with a letter or digit', () => {
  for (const ok of ['a', 'Claude-Code_1.2', '9', 'x'.repeat(64)]) assertTokenName(ok);
  for (const bad of ['', '-a', '.a', '_a', 'a b', 'a/b', 'x'.repeat(65), 'é']) {
    assert.throws(() => assertTokenName(bad), { message: `token name ${JSON.stringify(bad)} must be 1-64 of A-Z a-z 0-9 _ . - (starting with a letter or digit)` });
  }
});

test('a token is hmcp_ + 32 random bytes, stored only as its SHA-256; a new one is full unless a scope is given', () => {
  const { cli } = databases();
  const { token, scope } = issueStaticToken(cli, 'laptop', undefined, { rotate: false, now: 1234 });
  assert.equal(scope, 'hermes:full');
  assert.match(token, new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`));
  const row = cli.prepare('SELECT * FROM static_tokens').get() as Record<string, unknown>;
  assert.deepEqual(row, { name: 'laptop', digest: tokenDigest(token).toString('hex'), scope: 'hermes:full', created_at: 1234 });
  assert.equal(issueStaticToken(cli, 'reader', 'hermes:read', { rotate: false, now: 5 }).scope, 'hermes:read');
  assert.deepEqual(listStaticTokens(cli), [
    { name: 'laptop', scope: 'hermes:full', created_at: 1234 },
    { name: 'reader', scope: 'hermes:read', created_at: 5 },
  ]);
});

test('create refuses an existing name, rotate an unknown one; rotation keeps the stored scope unless another is named', () => {
  const { cli } = databases();
  issueStaticToken(cli, 'ci', 'hermes:read', { rotate: false, now: 1 });
  assert.throws(() => issueStaticToken(cli, 'ci', undefined, { rotate: false }), { message: 'a token named ci already exists; rotate it with: hermes-mcp-auth token rotate ci' });
  assert.throws(() => issueStaticToken(cli, 'nobody', undefined, { rotate: true }), { message: 'no token named nobody; create it with: hermes-mcp-auth token create nobody' });
  assert.throws(() => issueStaticToken(cli, 'bad name', undefined, { rotate: false }), /must be 1-64/);
  const rotated = issueStaticToken(cli, 'ci', undefined, { rotate: true, now: 2 });
  assert.equal(rotated.scope, 'hermes:read', 'replacing a secret never widens it');
  assert.equal(issueStaticToken(cli, 'ci', 'hermes:full', { rotate: true, now: 3 }).scope, 'hermes:full');
  assert.deepEqual(listStaticTokens(cli), [{ name: 'ci', scope: 'hermes:full', created_at: 3 }]);
});

test("the verifier names a presented token's name and scope, and follows another connection's changes at once", () => {
  const { cli, gateway } = databases();
  const verifier = new StaticTokenVerifier(gateway);
  assert.equal(verifier.count, 0);
  const first = issueStaticToken(cli, 'one', undefined, { rotate: false });
  const second = issueStaticToken(cli, 'two', 'hermes:read', { rotate: false });
  assert.equal(verifier.count, 2);
  assert.deepEqual(verifier.verify(first.token), { name: 'one', scope: 'hermes:full' });
  assert.deepEqual(verifier.verify(second.token), { name: 'two', scope: 'hermes:read' });
  assert.equal(verifier.verify(first.token + 'x'), undefined);
  assert.equal(verifier.verify(''), undefined);
  const rotated = issueStaticToken(cli, 'one', undefined, { rotate: true });
  assert.equal(verifier.verify(first.token), undefined, 'the old secret ends with the rotation');
  assert.deepEqual(verifier.verify(rotated.token), { name: 'one', scope: 'hermes:full' });
  assert.equal(revokeStaticToken(cli, 'two'), true);
  assert.equal(revokeStaticToken(cli, 'two'), false);
  assert.equal(verifier.verify(second.token), undefined);
  assert.equal(verifier.count, 1);
});
