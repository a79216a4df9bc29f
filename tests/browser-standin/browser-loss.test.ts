import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parentOf } from '../helpers/procfs.js';
import { startFixturePages, type FixturePages } from '../fixtures/camofox/pages.js';
import { startStandin, type Standin } from '../helpers/camofox.js';
import { waitFor } from '../helpers/wait.js';

// When the browser dies under it, the stand-in behaves as Camofox does: /health answers 503 while
// it relaunches, the tabs of the dead browser are gone with 410 browser_restarted (their UUIDs
// were lost in a restart), and a new tab works in the relaunched browser.

let standin: Standin;
let pages: FixturePages;

before(async () => {
  pages = await startFixturePages();
  standin = await startStandin();
});

after(async () => {
  await standin?.stop();
  await pages?.close();
});

test('a killed browser: 503 health, 410 browser_restarted for its tabs, then a working relaunch', async () => {
  const created = await standin.call('POST', '/tabs', { userId: 'u', sessionKey: 's', url: `${pages.origin}/form.html` });
  const oldTab = (created.json as { tabId: string }).tabId;
  const browserPid = standin.descendants().find((p) => parentOf(p.pid) === standin.child.pid)!.pid;
  process.kill(-browserPid, 'SIGKILL'); // Chromium leads its own process group

  const unhealthy = await waitFor(async () => {
    const r = await standin.call('GET', '/health');
    return r.status === 503 ? r : undefined;
  }, 10_000, 'health to report the lost browser');
  assert.equal((unhealthy.json as { reason: string }).reason, 'browser_disconnected');
  await waitFor(async () => (await standin.call('GET', '/health')).status === 200, 20_000, 'the browser to be relaunched');

  const gone = await standin.call('GET', `/tabs/${oldTab}/snapshot?userId=u`);
  assert.deepEqual([gone.status, (gone.json as { code: string }).code], [410, 'browser_restarted']);
  const fresh = await standin.call('POST', '/tabs', { userId: 'u', sessionKey: 's', url: `${pages.origin}/second.html` });
  assert.equal(fresh.status, 200, JSON.stringify(fresh.json));
  const snap = await standin.call('GET', `/tabs/${(fresh.json as { tabId: string }).tabId}/snapshot?userId=u`);
  assert.match((snap.json as { snapshot: string }).snapshot, /- link "Back to the form" \[e1\]/);
});
