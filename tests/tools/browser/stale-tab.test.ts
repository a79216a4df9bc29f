import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parentOf } from '../../helpers/procfs.js';
import { waitFor } from '../../helpers/wait.js';
import { browserSuite } from './fixture.js';

// A tab that is gone under the gateway (closed, reaped, or lost in a browser restart): every tool
// but browser_navigate answers STALE_TAB (retryable, recovery browser_navigate) without replaying
// the action or showing Camofox' status; browser_navigate opens a fresh tab and goes on.

const USER = 'gateway_test_user'; // a fixed Camofox user (CAMOFOX_USER_ID), so the test can list the owner's tabs
const b = browserSuite({ user: USER });

const tabsOfUser = async () => ((await b.standin.call('GET', `/tabs?userId=${USER}`)).json as { tabs: Array<{ tabId: string }> }).tabs.map((t) => t.tabId);

function assertStale(r: { isError: boolean; data: Record<string, unknown>; text: string }) {
  assert.equal(r.isError, true);
  assert.equal(r.data.error, 'STALE_TAB', r.text);
  assert.equal(r.data.code, 'stale_tab');
  assert.equal(r.data.retryable, true);
  assert.equal(r.data.recovery, 'browser_navigate');
  assert.doesNotMatch(r.text, /\b(404|410)\b/, 'no raw upstream status');
}

test('a closed tab: STALE_TAB for the other tools, browser_navigate rebinds once and works', async () => {
  assert.equal((await b.browse('browser_navigate', { url: `${b.pages.origin}/form.html` })).isError, false);
  const [oldTab] = await tabsOfUser();
  assert.ok(oldTab);
  await b.standin.call('DELETE', `/tabs/${oldTab}?userId=${USER}`); // Camofox reaped it: 404 Tab not found from now on

  assertStale(await b.browse('browser_snapshot'));
  assertStale(await b.browse('browser_click', { ref: '@e2' }));

  const again = await b.browse('browser_navigate', { url: `${b.pages.origin}/second.html` });
  assert.equal(again.isError, false, again.text);
  assert.match(again.data.snapshot as string, /link "Back to the form"/);
  const tabs = await tabsOfUser();
  assert.equal(tabs.length, 1);
  assert.notEqual(tabs[0], oldTab);
  assert.equal((await b.browse('browser_snapshot')).isError, false);
});

test('a browser restart (410 browser_restarted): STALE_TAB, then browser_navigate recovers', async () => {
  const browserPid = b.standin.descendants().find((p) => parentOf(p.pid) === b.standin.child.pid)!.pid;
  process.kill(-browserPid, 'SIGKILL'); // Chromium leads its own process group
  await waitFor(async () => (await b.standin.call('GET', '/health')).status === 503, 10_000, 'Camofox to notice the lost browser');
  await waitFor(async () => (await b.standin.call('GET', '/health')).status === 200, 20_000, 'the browser to be relaunched');

  assertStale(await b.browse('browser_get_images'));
  const again = await b.browse('browser_navigate', { url: `${b.pages.origin}/form.html` });
  assert.equal(again.isError, false, again.text);
  assert.match(again.data.snapshot as string, /textbox "Name"/);
});
