import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { ALLOW_LOOPBACK_PAGES, browse, homeWithConfig, startFakeCamofox } from '../../helpers/browser.js';
import { openSession, optionalComponents, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Camofox down or hanging: the call answers isError naming Camofox within its time budget (here
// browserCommandTimeoutSeconds / browserNavigateTimeoutSeconds = 1), never a hang; /readyz says
// `browser` is not ready (503 when it is required, 200 when marked optional).

const homes: string[] = [];
const gateways: TestGateway[] = [];
after(async () => {
  for (const gw of gateways) await gw.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

async function gateway(camofoxUrl: string, optional: string) {
  const home = homeWithConfig(ALLOW_LOOPBACK_PAGES);
  homes.push(home);
  const gw = await startTestGateway({
    home,
    env: { CAMOFOX_URL: camofoxUrl, HERMES_MCP_OPTIONAL_COMPONENTS: optional },
    limits: { browserCommandTimeoutSeconds: 1, browserNavigateTimeoutSeconds: 1, browserHealthTimeoutSeconds: 1 },
  });
  gateways.push(gw);
  return gw;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('Camofox not running: BROWSER_UNAVAILABLE naming Camofox, and /readyz 503 with a browser reason', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const gw = await gateway(url, optionalComponents('browser'));
  const { client, token } = await openSession(gw.mcpUrl);
  const r = await browse(client, token, 'browser_navigate', { url: 'http://127.0.0.1:1/' });
  assert.equal(r.data.error, 'BROWSER_UNAVAILABLE', r.text);
  assert.equal(r.data.component, 'camofox');
  assert.match(r.data.message as string, new RegExp(`Camofox is not reachable at ${url}`));
  const ready = await fetch(`${gw.url}/readyz`);
  assert.equal(ready.status, 503);
  const body = (await ready.json()) as { reasons: Array<{ component: string; action: string }>; components: Record<string, { status: string; required: boolean }> };
  assert.equal(body.components.browser?.status, 'unreachable');
  assert.match(body.reasons.find((x) => x.component === 'browser')?.action ?? '', /HERMES_MCP_OPTIONAL_COMPONENTS=browser/);
  await client.close();
});

test('Camofox hanging: BROWSER_TIMEOUT within the budget; optional browser keeps /readyz 200', async () => {
  const hung = await startFakeCamofox({ hang: true });
  try {
    const gw = await gateway(hung.url, optionalComponents());
    const { client, token } = await openSession(gw.mcpUrl);
    const started = performance.now();
    const r = await browse(client, token, 'browser_navigate', { url: 'http://127.0.0.1:1/' });
    const elapsed = performance.now() - started;
    assert.equal(r.data.error, 'BROWSER_TIMEOUT', r.text);
    assert.match(r.data.message as string, /Camofox .* did not answer POST \/tabs within the call's 1 s \(browserNavigateTimeoutSeconds\)/);
    assert.ok(elapsed < 3000, `answered after ${elapsed} ms`);
    const ready = await fetch(`${gw.url}/readyz`);
    assert.equal(ready.status, 200);
    const body = (await ready.json()) as { components: Record<string, { ready: boolean; required: boolean }> };
    assert.deepEqual([body.components.browser?.ready, body.components.browser?.required], [false, false]);
    await client.close();
  } finally {
    await hung.close();
  }
});
