import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { internalServiceForFile } from '../../helpers/internal-service.js';
import { HandClient, pkcePair } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Through a whole gateway's authorization server: a client_id whose name resolves to this machine
// is never fetched. A loopback listener stands in for the internal service and counts connections.
// The guard itself: metadata-fetch.test.ts.

const service = internalServiceForFile();

test('through the gateway: a client_id whose name resolves to this machine is never fetched', async (t) => {
  // This host's own name resolves to loopback on most machines (/etc/hosts); elsewhere there is no
  // offline name to try, and the injected-resolver test above covers the guard.
  const name = hostname().toLowerCase();
  const resolved = await lookup(name, { all: true }).catch(() => []);
  if (name.includes('.') || resolved.length === 0 || !resolved.every((a) => a.address.startsWith('127.'))) return t.skip(`${name} does not resolve to loopback here`);
  const gw: TestGateway = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: 'https://hermes.example.test' } });
  try {
    const c = new HandClient(gw.url, 'hermes.example.test');
    c.clientId = `https://${name}:${service.port}/client.json`;
    const res = await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
    assert.ok(res.status >= 400 || /error=/.test(String(res.headers.location)), `${res.status} ${res.headers.location}`);
    assert.equal(service.connections, 0, 'no connection reached the loopback listener');
  } finally {
    await gw.close();
  }
});
