import assert from 'node:assert/strict';
import { test } from 'node:test';
import { internalServiceForFile } from '../../helpers/internal-service.js';
import { guardedFetch, guardedLookup, isPublicAddress } from '../../../supervisor/http/auth/metadata-fetch.js';

// A Client ID Metadata Document is fetched only from public addresses, judged after resolving the
// name: a public-looking name that resolves to loopback or a private network never gets a
// connection. A loopback listener stands in for the internal service and counts connections. Through
// a whole gateway's authorization server: metadata-fetch-gateway.test.ts.

const service = internalServiceForFile();

test('loopback, private, link-local, unique-local, mapped and reserved addresses are not public', () => {
  for (const a of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fc12::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1', 'ff02::1', 'not-an-ip']) {
    assert.equal(isPublicAddress(a), false, a);
  }
  for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111']) assert.equal(isPublicAddress(a), true, a);
});

test('a name resolving to loopback (or to any private address among public ones) gets no connection', async () => {
  for (const addresses of [[{ address: '127.0.0.1', family: 4 }], [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }]]) {
    const asked: string[] = [];
    const fetch = guardedFetch(async (name) => {
      asked.push(name);
      return addresses;
    });
    await assert.rejects(fetch(`https://client.example.test:${service.port}/client.json`, { signal: AbortSignal.timeout(2500) }), /resolves to 127\.0\.0\.1/);
    assert.deepEqual(asked, ['client.example.test']);
  }
  await assert.rejects(guardedFetch(async () => [])(`https://[::1]:${service.port}/client.json`), /not a public address/);
  assert.equal(service.connections, 0);
});

test('guardedLookup: every address public answers the first (or all when asked); otherwise EADDRNOTPUBLIC; a resolver failure passes through', async () => {
  const lookupWith = (addresses: { address: string; family: number }[] | Error, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family: number | undefined }>((resolve) =>
      guardedLookup(async () => {
        if (addresses instanceof Error) throw addresses;
        return addresses;
      })('client.example.test', { all }, (error, address, family) => resolve({ error, address, family })),
    );
  const two = [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1111', family: 6 }];
  assert.deepEqual(await lookupWith(two, false), { error: null, address: '93.184.216.34', family: 4 });
  assert.deepEqual(await lookupWith(two, true), { error: null, address: two, family: undefined });
  const refused = await lookupWith([{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.1', family: 4 }], false);
  assert.equal(refused.error?.code, 'EADDRNOTPUBLIC');
  assert.equal(refused.error?.message, 'client.example.test resolves to 10.0.0.1: a client metadata document is never fetched from this machine or a private network');
  const none = await lookupWith([], true);
  assert.equal(none.error?.code, 'EADDRNOTPUBLIC');
  assert.match(none.error!.message, /^client\.example\.test resolves to no address:/);
  const failing = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  assert.equal((await lookupWith(failing, false)).error, failing);
});

test('only https URLs are fetched, and a private IP literal is refused before any lookup', async () => {
  let asked = 0;
  const fetch = guardedFetch(async () => {
    asked++;
    return [];
  });
  await assert.rejects(fetch(`http://client.example.test:${service.port}/client.json`), { message: 'a client metadata document is fetched over https only' });
  await assert.rejects(fetch(new Request(`https://10.1.2.3:${service.port}/c.json`)), { message: '10.1.2.3 is not a public address' });
  await assert.rejects(fetch(`https://127.0.0.1:${service.port}/c.json`), { message: '127.0.0.1 is not a public address' });
  assert.equal(asked, 0);
  assert.equal(service.connections, 0);
});
