import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { browse, homeWithConfig, startFakeCamofox, type FakeCamofox } from '../../helpers/browser.js';
import { openSession, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Bad navigation targets get a stable code before any request reaches Camofox: a recording fake
// Camofox sees nothing. By default loopback and private addresses are refused (the gateway's
// caller is remote: Hermes' rule for a browser that is not the caller's own machine); Hermes'
// security.allow_private_urls opens them, but never cloud metadata.

let camofox: FakeCamofox;
const started: Array<{ gw: TestGateway; client: Client; home: string }> = [];

async function gatewayWith(config: Record<string, unknown>) {
  const home = homeWithConfig(config);
  const gw = await startTestGateway({ home, env: { CAMOFOX_URL: camofox.url } });
  const { client, token } = await openSession(gw.mcpUrl);
  started.push({ gw, client, home });
  return (url: string) => browse(client, token, 'browser_navigate', { url });
}

before(async () => {
  camofox = await startFakeCamofox();
});

after(async () => {
  for (const { gw, client, home } of started) {
    await client.close();
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  }
  await camofox?.close();
});

const tabRequests = () => camofox.requests.filter((r) => r.path !== '/health');

describe('default policy', () => {
  let navigate: (url: string) => ReturnType<typeof browse>;
  before(async () => {
    navigate = await gatewayWith({});
  });

  const cases: Array<[string, string, string?]> = [
    ['file:///etc/passwd', 'BROWSER_URL_INVALID'],
    ['javascript:alert(1)', 'BROWSER_URL_INVALID'],
    ['data:text/html,<h1>x</h1>', 'BROWSER_URL_INVALID'],
    ['not a url', 'BROWSER_URL_INVALID'],
    ['http://169.254.169.254/latest/meta-data/', 'BROWSER_URL_BLOCKED', 'cloud_metadata'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'BROWSER_URL_BLOCKED', 'cloud_metadata'],
    ['http://10.1.2.3/', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['http://192.168.1.1/admin', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['http://172.20.0.1/', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['http://100.64.0.1/', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['http://127.0.0.1:3060/mcp', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['http://0x7f.1/', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['http://localhost:9377/health', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['http://[::1]/', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['http://[::ffff:10.0.0.1]/', 'BROWSER_URL_BLOCKED', 'private_address'],
    ['https://example.com/login?token=abc123', 'BROWSER_URL_BLOCKED', 'credential_parameter'],
    ['https://example.com/?q=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD', 'BROWSER_URL_BLOCKED', 'secret_in_url'],
    [`https://example.com/${'a'.repeat(8200)}`, 'BROWSER_INPUT_TOO_LARGE'],
  ];
  for (const [url, code, reason] of cases) {
    test(`${url.slice(0, 60)} → ${code}${reason ? ` (${reason})` : ''}`, async () => {
      const before = tabRequests().length;
      const r = await navigate(url);
      assert.equal(r.isError, true);
      assert.equal(r.data.error, code, r.text);
      if (reason) assert.equal(r.data.reason, reason);
      assert.deepEqual(tabRequests().slice(before), [], 'nothing reached Camofox');
    });
  }
});

describe('security.allow_private_urls: true', () => {
  let navigate: (url: string) => ReturnType<typeof browse>;
  before(async () => {
    navigate = await gatewayWith({ security: { allow_private_urls: true } });
  });

  test('cloud metadata stays refused', async () => {
    const before = tabRequests().length;
    for (const url of ['http://169.254.169.254/', 'http://[::ffff:169.254.169.254]/', 'http://100.100.100.200/']) {
      const r = await navigate(url);
      assert.equal(r.data.reason, 'cloud_metadata', `${url}: ${r.text}`);
    }
    assert.deepEqual(tabRequests().slice(before), []);
  });

  test('a private address is opened', async () => {
    const r = await navigate('http://10.1.2.3/');
    assert.equal(r.isError, false, r.text);
    const opened = tabRequests().find((q) => q.method === 'POST' && q.path === '/tabs');
    assert.equal((opened?.body as { url: string }).url, 'http://10.1.2.3/');
  });
});
