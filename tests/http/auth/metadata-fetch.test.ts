import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { after, before, test } from 'node:test';
import { guardedFetch, isPublicAddress } from '../../../supervisor/http/auth/metadata-fetch.js';
import { HandClient, pkcePair } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// A Client ID Metadata Document is fetched only from public addresses, judged after resolving the
// name: a public-looking name that resolves to loopback or a private network never gets a
// connection. A loopback listener stands in for the internal service and counts connections.

let listener: Server;
let port: number;
let connections = 0;
before(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
after(() => new Promise<void>((resolve) => listener.close(() => resolve())));

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
    await assert.rejects(fetch(`https://client.example.test:${port}/client.json`, { signal: AbortSignal.timeout(2500) }), /resolves to 127\.0\.0\.1/);
    assert.deepEqual(asked, ['client.example.test']);
  }
  await assert.rejects(guardedFetch(async () => [])(`https://[::1]:${port}/client.json`), /not a public address/);
  assert.equal(connections, 0);
});

test('through the gateway: a client_id whose name resolves to this machine is never fetched', async (t) => {
  // This host's own name resolves to loopback on most machines (/etc/hosts); elsewhere there is no
  // offline name to try, and the injected-resolver test above covers the guard.
  const name = hostname().toLowerCase();
  const resolved = await lookup(name, { all: true }).catch(() => []);
  if (name.includes('.') || resolved.length === 0 || !resolved.every((a) => a.address.startsWith('127.'))) return t.skip(`${name} does not resolve to loopback here`);
  const gw: TestGateway = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test' } });
  try {
    const c = new HandClient(gw.url, 'hermes.example.test');
    c.clientId = `https://${name}:${port}/client.json`;
    const res = await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
    assert.ok(res.status >= 400 || /error=/.test(String(res.headers.location)), `${res.status} ${res.headers.location}`);
    assert.equal(connections, 0, 'no connection reached the loopback listener');
  } finally {
    await gw.close();
  }
});
