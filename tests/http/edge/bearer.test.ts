import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { Hono } from 'hono';
import { bearerAuth, bearerMatches, bearerToken, tokenDigest } from '../../../supervisor/http/edge/bearer.js';

test('tokenDigest is the SHA-256 of the token', () => {
  assert.deepEqual(tokenDigest('abc'), createHash('sha256').update('abc').digest());
  assert.equal(tokenDigest('abc').length, 32);
});

test('bearer: only the exact token matches; scheme case-insensitive; other schemes and junk refused', () => {
  const digest = tokenDigest('a'.repeat(64));
  assert.equal(bearerMatches(`Bearer ${'a'.repeat(64)}`, digest), true);
  assert.equal(bearerMatches(`bearer ${'a'.repeat(64)}`, digest), true);
  assert.equal(bearerMatches(`Bearer ${'a'.repeat(63)}`, digest), false);
  assert.equal(bearerMatches(`Basic ${'a'.repeat(64)}`, digest), false);
  assert.equal(bearerMatches(`Bearer ${'a'.repeat(64)} x`, digest), false);
  assert.equal(bearerMatches(undefined, digest), false);
  assert.equal(bearerToken('Bearer '), undefined);
});

test("bearerToken takes RFC 6750's token68 characters, padding and trailing spaces", () => {
  assert.equal(bearerToken('Bearer   a-b.c_d~e+f/g=='), 'a-b.c_d~e+f/g==');
  assert.equal(bearerToken('BEARER tok  '), 'tok');
  for (const bad of ['Bearer a=b', 'Bearer tok\u00e9', 'Bearertok', ' Bearer tok', 'Bearer a b', null, undefined, '']) assert.equal(bearerToken(bad), undefined, String(bad));
});

function app(expected: () => Buffer | undefined, unauthorized?: (reason: 'missing' | 'invalid') => unknown): Hono {
  const a = new Hono();
  a.use('*', bearerAuth({ expected, realm: 'edge', ...(unauthorized ? { unauthorized } : {}) }));
  a.get('/', (c) => c.text('in'));
  return a;
}

test('the middleware: the token passes; missing gets a bare challenge, a wrong one error="invalid_token"', async () => {
  const a = app(() => tokenDigest('t0k'));
  const ok = await a.request('/', { headers: { authorization: 'Bearer t0k' } });
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), 'in');
  const missing = await a.request('/');
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="edge"');
  assert.deepEqual(await missing.json(), { error: 'unauthorized', message: 'a valid bearer token is required' });
  const wrong = await a.request('/', { headers: { authorization: 'Bearer nope' } });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="edge", error="invalid_token"');
  const basic = await a.request('/', { headers: { authorization: 'Basic dTpw' } });
  assert.equal(basic.headers.get('www-authenticate'), 'Bearer realm="edge"', 'another scheme is no bearer token: missing');
});

test("the middleware reads the expected token per request, uses the caller's 401 body, and fails closed without one", async () => {
  let expected: Buffer | undefined = tokenDigest('one');
  const reasons: string[] = [];
  const a = app(() => expected, (reason) => {
    reasons.push(reason);
    return { custom: reason };
  });
  assert.equal((await a.request('/', { headers: { authorization: 'Bearer one' } })).status, 200);
  expected = tokenDigest('two');
  const old = await a.request('/', { headers: { authorization: 'Bearer one' } });
  assert.equal(old.status, 401);
  assert.deepEqual(await old.json(), { custom: 'invalid' });
  assert.deepEqual(await (await a.request('/')).json(), { custom: 'missing' });
  assert.deepEqual(reasons, ['invalid', 'missing']);
  expected = undefined;
  const closed = await a.request('/', { headers: { authorization: 'Bearer two' } });
  assert.equal(closed.status, 503);
  assert.deepEqual(await closed.json(), { error: 'not_configured', message: 'no valid bearer token is configured for this endpoint' });
});
