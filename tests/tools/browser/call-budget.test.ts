import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { ALLOW_LOOPBACK_PAGES, browse, homeWithConfig, startFakeCamofox, type FakeCamofox, type RecordedRequest } from '../../helpers/browser.js';
import { abortableToolCall, openSession, optionalComponents, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { waitFor } from '../../helpers/wait.js';

// One time budget per browser call, shared by every Camofox request it makes: a scroll whose five
// steps each answer just inside the per-request timeout still ends at the call's budget. And a
// call queued behind one that hangs (same owner, so one at a time) leaves the queue when its
// client goes away, instead of waiting for the hung call to end.

const homes: string[] = [];
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

const happy = (r: RecordedRequest) => {
  if (r.path === '/health') return { status: 200, body: { ok: true, browserRunning: true, activeTabs: 0 } };
  if (r.method === 'POST' && r.path === '/tabs') return { status: 200, body: { tabId: 'tab-1', url: (r.body as { url?: string }).url } };
  if (r.path.startsWith('/tabs/tab-1/snapshot')) return { status: 200, body: { url: 'http://x/', snapshot: '- button "Go" [e1]', refsCount: 1 } };
  if (r.method === 'POST' && r.path.startsWith('/tabs/tab-1/')) return { status: 200, body: { ok: true, url: 'http://127.0.0.1:1/' } };
  return { status: 404, body: { error: 'Not found' } };
};

async function gateway(camofox: FakeCamofox, commandTimeoutSeconds: number): Promise<TestGateway> {
  const home = homeWithConfig(ALLOW_LOOPBACK_PAGES);
  homes.push(home);
  const gw = await startTestGateway({
    home,
    env: { CAMOFOX_URL: camofox.url, HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('browser') },
    limits: { browserCommandTimeoutSeconds: commandTimeoutSeconds, browserNavigateTimeoutSeconds: commandTimeoutSeconds },
  });
  cleanups.push(() => gw.close());
  return gw;
}

test('a scroll whose every step answers just inside the timeout ends with BROWSER_TIMEOUT at the call budget', async () => {
  const STEP_MS = 700; // under browser.command_timeout (1 s); five of them are not
  const camofox = await startFakeCamofox({ reply: happy, delay: (r) => (r.path.endsWith('/scroll') ? STEP_MS : 0) });
  cleanups.push(() => camofox.close());
  const gw = await gateway(camofox, 1);
  const { client, token } = await openSession(gw.mcpUrl);
  cleanups.push(() => client.close());
  assert.equal((await browse(client, token, 'browser_navigate', { url: 'http://127.0.0.1:1/' })).isError, false);
  const started = performance.now();
  const r = await browse(client, token, 'browser_scroll', { direction: 'down' });
  const elapsed = performance.now() - started;
  assert.equal(r.data.error, 'BROWSER_TIMEOUT', r.text);
  assert.match(r.data.message as string, /within the call's 1 s \(browser\.command_timeout\)/);
  assert.ok(elapsed < 2000, `answered after ${elapsed} ms`);
  assert.equal(camofox.requests.filter((q) => q.path.endsWith('/scroll')).length, 2, 'the third step is never sent');
});

test('a call queued behind a hung one is released when its client goes away', async () => {
  const camofox = await startFakeCamofox({ reply: happy, delay: (r) => (r.path.endsWith('/press') ? 'hang' : 0) });
  cleanups.push(() => camofox.close());
  const gw = await gateway(camofox, 20);
  const { client, token } = await openSession(gw.mcpUrl);
  cleanups.push(() => client.close());
  assert.equal((await browse(client, token, 'browser_navigate', { url: 'http://127.0.0.1:1/' })).isError, false);
  const hung = browse(client, token, 'browser_press', { key: 'Enter' }); // holds the owner's turn for 20 s
  await waitFor(() => camofox.requests.some((q) => q.path.endsWith('/press')), 5000, 'the press under way');
  // /healthz counts every browser call until its handler settles, whether or not its client waits.
  const inflight = async () => ((await (await fetch(`${gw.url}/healthz`)).json()) as { inflight_native_calls: number }).inflight_native_calls;
  const queued = abortableToolCall(gw.mcpUrl, 'browser_snapshot', {}, token);
  await waitFor(async () => (await inflight()) === 2, 5000, 'the snapshot queued behind the press');
  queued.abort();
  assert.equal(await queued.done, 'aborted');
  // The queued call leaves the queue while the press still hangs.
  await waitFor(async () => (await inflight()) === 1, 3000, 'the queued call released');
  assert.equal(camofox.requests.filter((q) => q.path.includes('/snapshot')).length, 1, "only the navigation's snapshot reached Camofox");
  await camofox.close(); // ends the hung press
  await hung;
});
