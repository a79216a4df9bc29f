import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { startFixturePages, type FixturePages } from '../../fixtures/camofox/pages.js';
import { ALLOW_LOOPBACK_PAGES, browse, homeWithConfig } from '../../helpers/browser.js';
import { startStandin, type Standin } from '../../helpers/camofox.js';
import { openSession, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { parentOf } from '../../helpers/procfs.js';
import { waitFor } from '../../helpers/wait.js';

// A tab that is gone under the gateway (closed, reaped, or lost in a browser restart): every tool
// but browser_navigate answers STALE_TAB (retryable, recovery browser_navigate) without replaying
// the action or showing Camofox' status; browser_navigate opens a fresh tab and goes on.

const USER = 'gateway_test_user'; // a fixed Camofox user (CAMOFOX_USER_ID), so the test can list the owner's tabs
let standin: Standin;
let pages: FixturePages;
let gw: TestGateway;
let home: string;
let client: Client;
let token: string;

const tabsOfUser = async () => ((await standin.call('GET', `/tabs?userId=${USER}`)).json as { tabs: Array<{ tabId: string }> }).tabs.map((t) => t.tabId);

before(async () => {
  pages = await startFixturePages();
  standin = await startStandin();
  home = homeWithConfig(ALLOW_LOOPBACK_PAGES);
  gw = await startTestGateway({ home, env: { CAMOFOX_URL: `http://127.0.0.1:${standin.port}`, CAMOFOX_USER_ID: USER } });
  ({ client, token } = await openSession(gw.mcpUrl));
});

after(async () => {
  await client?.close();
  await gw?.close();
  await standin?.stop();
  await pages?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

function assertStale(r: { isError: boolean; data: Record<string, unknown>; text: string }) {
  assert.equal(r.isError, true);
  assert.equal(r.data.error, 'STALE_TAB', r.text);
  assert.equal(r.data.code, 'stale_tab');
  assert.equal(r.data.retryable, true);
  assert.equal(r.data.recovery, 'browser_navigate');
  assert.doesNotMatch(r.text, /\b(404|410)\b/, 'no raw upstream status');
}

test('a closed tab: STALE_TAB for the other tools, browser_navigate rebinds once and works', async () => {
  assert.equal((await browse(client, token, 'browser_navigate', { url: `${pages.origin}/form.html` })).isError, false);
  const [oldTab] = await tabsOfUser();
  assert.ok(oldTab);
  await standin.call('DELETE', `/tabs/${oldTab}?userId=${USER}`); // Camofox reaped it: 404 Tab not found from now on

  assertStale(await browse(client, token, 'browser_snapshot'));
  assertStale(await browse(client, token, 'browser_click', { ref: '@e2' }));

  const again = await browse(client, token, 'browser_navigate', { url: `${pages.origin}/second.html` });
  assert.equal(again.isError, false, again.text);
  assert.match(again.data.snapshot as string, /link "Back to the form"/);
  const tabs = await tabsOfUser();
  assert.equal(tabs.length, 1);
  assert.notEqual(tabs[0], oldTab);
  assert.equal((await browse(client, token, 'browser_snapshot')).isError, false);
});

test('a browser restart (410 browser_restarted): STALE_TAB, then browser_navigate recovers', async () => {
  const browserPid = standin.descendants().find((p) => parentOf(p.pid) === standin.child.pid)!.pid;
  process.kill(-browserPid, 'SIGKILL'); // Chromium leads its own process group
  await waitFor(async () => (await standin.call('GET', '/health')).status === 503, 10_000, 'Camofox to notice the lost browser');
  await waitFor(async () => (await standin.call('GET', '/health')).status === 200, 20_000, 'the browser to be relaunched');

  assertStale(await browse(client, token, 'browser_get_images'));
  const again = await browse(client, token, 'browser_navigate', { url: `${pages.origin}/form.html` });
  assert.equal(again.isError, false, again.text);
  assert.match(again.data.snapshot as string, /textbox "Name"/);
});
