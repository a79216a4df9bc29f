import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStandin, type Standin } from '../helpers/camofox.js';

// CAMOFOX_ACCESS_KEY on the stand-in, checked as Camofox' lib/auth.js accessKeyMiddleware does:
// every route but /health needs `Authorization: Bearer <key>` (scheme case-insensitive, token
// trimmed); otherwise 401 {error:"Unauthorized"} with a Bearer challenge, before any routing.
// Hermes sends its CAMOFOX_API_KEY as that bearer token.

const KEY = 'camofox-test-key-7d1c';
let standin: Standin;

before(async () => {
  standin = await startStandin({ CAMOFOX_ACCESS_KEY: KEY });
});

after(async () => {
  await standin?.stop();
});

const createTab = (headers: Record<string, string>) => standin.call('POST', '/tabs', { userId: 'u', sessionKey: 's' }, headers);

test('/health needs no key', async () => {
  assert.equal((await standin.call('GET', '/health')).status, 200);
});

test('without the key, or with a wrong one, every other route is refused with 401 and a Bearer challenge', async () => {
  for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${KEY}x` }, { authorization: `Basic ${KEY}` }, { authorization: KEY }]) {
    const r = await createTab(headers);
    assert.equal(r.status, 401, JSON.stringify(headers));
    assert.deepEqual(r.json, { error: 'Unauthorized' });
    assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="camofox"');
  }
  assert.equal((await standin.call('GET', '/tabs?userId=u')).status, 401);
  assert.equal((await standin.call('GET', '/no-such-route')).status, 401, 'the gate comes before routing');
});

test('with the key as a Bearer token the routes answer', async () => {
  const r = await createTab({ authorization: `Bearer ${KEY}` });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal((await createTab({ authorization: `bearer   ${KEY} ` })).status, 200);
  assert.equal((await standin.call('GET', '/tabs?userId=u', undefined, { authorization: `Bearer ${KEY}` })).status, 200);
});
