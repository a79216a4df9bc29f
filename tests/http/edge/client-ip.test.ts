import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { clientIp } from '../../../supervisor/http/edge/client-ip.js';

// The address an edge keys on: a loopback peer (a local tunnel or proxy) is replaced by the last
// X-Forwarded-For entry when that is an IP; otherwise the socket peer. Served on real loopback so
// the peer is a real socket's.

const app = new Hono();
app.get('/', (c) => c.text(clientIp(c)));
let server: ServerType;
let base: string;
before(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ipFor = async (forwarded?: string) => (await fetch(base, forwarded === undefined ? {} : { headers: { 'x-forwarded-for': forwarded } })).text();

test('a direct local client without the header is keyed on its socket address', async () => {
  assert.equal(await ipFor(), '127.0.0.1');
});

test("through a local proxy, the last X-Forwarded-For entry (the nearest proxy's) is taken, trimmed", async () => {
  assert.equal(await ipFor('203.0.113.7'), '203.0.113.7');
  assert.equal(await ipFor('6.6.6.6, 198.51.100.2 '), '198.51.100.2', 'earlier entries can be forged');
  assert.equal(await ipFor('2001:db8::1'), '2001:db8::1');
});

test('a last entry that is not an IP leaves the socket address', async () => {
  assert.equal(await ipFor('203.0.113.7, unknown'), '127.0.0.1');
  assert.equal(await ipFor(''), '127.0.0.1');
  assert.equal(await ipFor('203.0.113.7,'), '127.0.0.1');
});

test('outside a Node server (app.request in-process) there is no socket: unknown, and the header is not believed', async () => {
  const res = await app.request('/', { headers: { 'x-forwarded-for': '203.0.113.7' } });
  assert.equal(await res.text(), 'unknown');
});
