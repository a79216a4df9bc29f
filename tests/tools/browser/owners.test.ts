import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browse } from '../../helpers/browser.js';
import { connect, openSession, viaBridge } from '../../helpers/gateway.js';
import { browserSuite } from './fixture.js';

// Each owner has its own tab: two sessions browse different pages side by side, a call without a
// durable owner is refused, and session_close drops only the closing owner's binding.

const USER = 'gateway_owners_user';
const suite = browserSuite({ user: USER, session: false });

const boundTabs = async () => ((await (await fetch(`${suite.gw.url}/healthz`)).json()) as { browser_bound_tabs: number }).browser_bound_tabs;

test('a sessionless call without a token is refused before Camofox is asked', async () => {
  const client = await connect(suite.gw.mcpUrl, 'modern');
  const r = await viaBridge(client, 'browser_navigate', { url: `${suite.pages.origin}/form.html` });
  assert.equal(r.data.error, 'OWNER_REQUIRED');
  await client.close();
});

test('two owners get separate tabs; session_close drops only its own', async () => {
  const a = await openSession(suite.gw.mcpUrl);
  const b = await openSession(suite.gw.mcpUrl);
  await browse(a.client, a.token, 'browser_navigate', { url: `${suite.pages.origin}/form.html` });
  await browse(b.client, b.token, 'browser_navigate', { url: `${suite.pages.origin}/second.html` });
  const tabs = ((await suite.standin.call('GET', `/tabs?userId=${USER}`)).json as { tabs: Array<{ listItemId: string }> }).tabs;
  assert.equal(tabs.length, 2);
  assert.notEqual(tabs[0]!.listItemId, tabs[1]!.listItemId, 'each owner is its own Hermes task (tab group)');
  assert.match((await browse(a.client, a.token, 'browser_snapshot')).data.snapshot as string, /textbox "Name"/);
  assert.match((await browse(b.client, b.token, 'browser_snapshot')).data.snapshot as string, /The second page/);
  assert.equal(await boundTabs(), 2);

  const closed = await viaBridge(a.client, 'session_close', {}, a.token);
  assert.equal(closed.isError, false, JSON.stringify(closed.data));
  assert.equal(await boundTabs(), 1);
  // b keeps its tab and page; a's binding is gone with its token
  assert.match((await browse(b.client, b.token, 'browser_snapshot')).data.snapshot as string, /The second page/);
  assert.equal((await browse(a.client, a.token, 'browser_snapshot')).data.error, 'SESSION_TOKEN_REVOKED');
  await a.client.close();
  await b.client.close();
});

test('a new owner starts without a page', async () => {
  const c = await openSession(suite.gw.mcpUrl);
  const r = await browse(c.client, c.token, 'browser_snapshot');
  assert.equal(r.data.error, 'BROWSER_NOT_NAVIGATED');
  assert.equal(r.data.recovery, 'browser_navigate');
  await c.client.close();
});
