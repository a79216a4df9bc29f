import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFixturePages, type FixturePages } from '../fixtures/camofox/pages.js';
import { startStandin, type Standin } from '../helpers/camofox.js';

// Camofox' identity model on the stand-in: a userId is one browser context (cookies and storage
// shared by all its tabs, invisible to other users), a sessionKey (or its legacy name listItemId)
// groups tabs inside it, a tab belongs to its user only, and DELETE /sessions/:userId closes the
// whole context.

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

async function openTab(userId: string, group: Record<string, string>): Promise<string> {
  const r = await standin.call('POST', '/tabs', { userId, ...group, url: `${pages.origin}/form.html` });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return (r.json as { tabId: string }).tabId;
}

async function evaluate(userId: string, tabId: string, expression: string): Promise<unknown> {
  const r = await standin.call('POST', `/tabs/${tabId}/evaluate`, { userId, expression });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return (r.json as { result: unknown }).result;
}

test('one context per userId, tab groups per sessionKey, tabs reachable only through their user', async () => {
  const a1 = await openTab('alice', { sessionKey: 'task_one' });
  const a2 = await openTab('alice', { listItemId: 'task_two' });
  const a3 = await openTab('alice', { sessionKey: 'task_one', listItemId: 'ignored' });
  const b1 = await openTab('bob', { listItemId: 'task_one' });

  await evaluate('alice', a1, 'document.cookie = "who=alice; path=/"; localStorage.setItem("k", "alice"); true');
  assert.equal(await evaluate('alice', a2, 'document.cookie'), 'who=alice', "alice's other tab shares her cookies");
  assert.equal(await evaluate('alice', a2, 'localStorage.getItem("k")'), 'alice');
  assert.equal(await evaluate('bob', b1, 'document.cookie'), '', "bob's context has none of alice's cookies");
  assert.equal(await evaluate('bob', b1, 'localStorage.getItem("k")'), null);

  const listed = await standin.call('GET', '/tabs?userId=alice');
  const groups = (listed.json as { tabs: Array<{ tabId: string; listItemId: string }> }).tabs.map((t) => [t.tabId, t.listItemId] as const);
  assert.deepEqual(new Map(groups), new Map([[a1, 'task_one'], [a3, 'task_one'], [a2, 'task_two']]), 'sessionKey wins over listItemId');
  assert.deepEqual((await standin.call('GET', '/tabs?userId=bob')).json, { running: true, tabs: [{ targetId: b1, tabId: b1, url: `${pages.origin}/form.html`, title: 'Stand-in form', listItemId: 'task_one' }] });

  const foreign = await standin.call('GET', `/tabs/${a1}/snapshot?userId=bob`);
  assert.equal(foreign.status, 410, "alice's tab is unknown to bob");
  const health = (await standin.call('GET', '/health')).json as { activeTabs: number; activeSessions: number };
  assert.deepEqual([health.activeTabs, health.activeSessions], [4, 2]);

  assert.deepEqual((await standin.call('DELETE', '/sessions/alice')).json, { ok: true });
  assert.deepEqual((await standin.call('GET', '/tabs?userId=alice')).json, { running: true, tabs: [] });
  assert.equal((await standin.call('GET', `/tabs/${a2}/snapshot?userId=alice`)).status, 410);
  assert.equal(await evaluate('bob', b1, '1 + 1'), 2, "bob's session is untouched");
  const fresh = await openTab('alice', { sessionKey: 'task_one' });
  assert.equal(await evaluate('alice', fresh, 'document.cookie'), '', 'a new context for alice starts empty');
});
