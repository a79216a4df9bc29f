import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFixturePages, type FixturePages } from '../fixtures/camofox/pages.js';
import { camofoxContract, pngSize, startStandin, type Standin, type StandinReply } from '../helpers/camofox.js';

// Every route Hermes' browser tools use, answered by the stand-in and checked against Camofox' own
// OpenAPI document (tests/fixtures/camofox/openapi.json): the status is a documented one and the
// body matches its schema, with every documented property of a success body present. Where
// Camofox' server.js answers differently from its openapi.json, the stand-in follows server.js and
// the test says so: the screenshot is raw PNG bytes, an unknown tab id that looks like one of its
// UUIDs answers 410 browser_restarted within five minutes of the browser's launch, closing an
// unknown tab or session is 200, and an unpaged snapshot has no hasMore/nextOffset (null on the
// last page).

const USER = 'contract-user';
const UNKNOWN = 'no-such-tab';
let standin: Standin;
let pages: FixturePages;
let tabId: string;
const contract = camofoxContract();

before(async () => {
  pages = await startFixturePages();
  standin = await startStandin();
});

after(async () => {
  await standin?.stop();
  await pages?.close();
});

/** Asserts `r` is a documented answer of `method path` with status `status`. */
function conforms(r: StandinReply, method: string, path: string, status: number, optional: string[] = []): Record<string, unknown> {
  assert.equal(r.status, status, `${method} ${path}: ${r.bytes.toString('utf8').slice(0, 300)}`);
  assert.match(r.contentType, /^application\/json/, `${method} ${path} answers JSON`);
  const problem = contract.validate(path, method, status, r.json);
  assert.equal(problem, null, `${method} ${path} ${status} against openapi.json: ${problem}`);
  const body = r.json as Record<string, unknown>;
  if (status === 200) {
    const missing = contract.documentedKeys(path, method, status).filter((k) => !(k in body) && !optional.includes(k));
    assert.deepEqual(missing, [], `${method} ${path}: documented properties missing`);
  }
  return body;
}

test('GET /health', async () => {
  const body = conforms(await standin.call('GET', '/health'), 'get', '/health', 200);
  assert.equal(body.ok, true);
  assert.equal(body.browserRunning, true);
});

test('POST /tabs: 200 with a tab id (Hermes sends the session key as listItemId), 400 without a session key', async () => {
  const created = conforms(await standin.call('POST', '/tabs', { userId: USER, listItemId: 'task_contract', url: `${pages.origin}/form.html` }), 'post', '/tabs', 200);
  tabId = created.tabId as string;
  assert.match(tabId, /^[0-9a-f-]{36}$/);
  const bad = conforms(await standin.call('POST', '/tabs', { userId: USER }), 'post', '/tabs', 400);
  assert.equal(bad.error, 'userId and sessionKey required');
});

test('GET /tabs lists the user\'s tabs with their group', async () => {
  const body = conforms(await standin.call('GET', `/tabs?userId=${USER}`), 'get', '/tabs', 200);
  assert.deepEqual(body.tabs, [{ targetId: tabId, tabId, url: `${pages.origin}/form.html`, title: 'Stand-in form', listItemId: 'task_contract' }]);
});

test('POST /tabs/{tabId}/navigate: 200, 400 without userId, 404 for an unknown tab', async () => {
  const path = '/tabs/{tabId}/navigate';
  conforms(await standin.call('POST', `/tabs/${tabId}/navigate`, { userId: USER, url: `${pages.origin}/form.html` }), 'post', path, 200);
  conforms(await standin.call('POST', `/tabs/${tabId}/navigate`, { url: `${pages.origin}/form.html` }), 'post', path, 400);
  const blocked = conforms(await standin.call('POST', `/tabs/${tabId}/navigate`, { userId: USER, url: 'file:///etc/passwd' }), 'post', path, 400);
  assert.match(blocked.error as string, /^Blocked URL scheme: file:/);
  conforms(await standin.call('POST', `/tabs/${UNKNOWN}/navigate`, { userId: USER, url: `${pages.origin}/form.html` }), 'post', path, 404);
});

test('GET /tabs/{tabId}/snapshot: 200 (unpaged: no hasMore/nextOffset), 404', async () => {
  const path = '/tabs/{tabId}/snapshot';
  const body = conforms(await standin.call('GET', `/tabs/${tabId}/snapshot?userId=${USER}`), 'get', path, 200, ['hasMore', 'nextOffset']);
  assert.equal(body.truncated, false);
  assert.ok(!('hasMore' in body) && !('nextOffset' in body));
  const shot = await standin.call('GET', `/tabs/${tabId}/snapshot?userId=${USER}&includeScreenshot=true`);
  const withShot = conforms(shot, 'get', path, 200, ['hasMore', 'nextOffset']);
  const screenshot = withShot.screenshot as { data: string; mimeType: string };
  assert.equal(screenshot.mimeType, 'image/png');
  assert.ok(pngSize(Buffer.from(screenshot.data, 'base64')));
  conforms(await standin.call('GET', `/tabs/${UNKNOWN}/snapshot?userId=${USER}`), 'get', path, 404);
});

test('POST click / type / press / scroll / back: 200, 400 for a missing target, 404 for an unknown tab', async () => {
  const post = (route: string, tab: string, b: unknown) => standin.call('POST', `/tabs/${tab}/${route}`, b);
  conforms(await post('type', tabId, { userId: USER, ref: 'e1', text: 'Ada' }), 'post', '/tabs/{tabId}/type', 200);
  conforms(await post('type', tabId, { userId: USER, text: 'Ada' }), 'post', '/tabs/{tabId}/type', 400);
  conforms(await post('type', UNKNOWN, { userId: USER, ref: 'e1', text: 'Ada' }), 'post', '/tabs/{tabId}/type', 404);
  conforms(await post('click', tabId, { userId: USER, ref: 'e2' }), 'post', '/tabs/{tabId}/click', 200);
  conforms(await post('click', tabId, { userId: USER }), 'post', '/tabs/{tabId}/click', 400);
  conforms(await post('click', UNKNOWN, { userId: USER, ref: 'e2' }), 'post', '/tabs/{tabId}/click', 404);
  conforms(await post('press', tabId, { userId: USER, key: 'Tab' }), 'post', '/tabs/{tabId}/press', 200);
  conforms(await post('press', UNKNOWN, { userId: USER, key: 'Tab' }), 'post', '/tabs/{tabId}/press', 404);
  conforms(await post('scroll', tabId, { userId: USER, direction: 'down' }), 'post', '/tabs/{tabId}/scroll', 200);
  conforms(await post('scroll', UNKNOWN, { userId: USER }), 'post', '/tabs/{tabId}/scroll', 404);
  await post('navigate', tabId, { userId: USER, url: `${pages.origin}/second.html` });
  conforms(await post('back', tabId, { userId: USER }), 'post', '/tabs/{tabId}/back', 200);
  conforms(await post('back', UNKNOWN, { userId: USER }), 'post', '/tabs/{tabId}/back', 404);
});

test('GET images: 200, 404; GET screenshot: raw PNG (openapi.json says JSON; server.js sends image/png), 404', async () => {
  conforms(await standin.call('GET', `/tabs/${tabId}/images?userId=${USER}`), 'get', '/tabs/{tabId}/images', 200);
  conforms(await standin.call('GET', `/tabs/${UNKNOWN}/images?userId=${USER}`), 'get', '/tabs/{tabId}/images', 404);
  const shot = await standin.call('GET', `/tabs/${tabId}/screenshot?userId=${USER}`);
  assert.equal(shot.status, 200);
  assert.equal(shot.contentType, 'image/png');
  assert.ok(pngSize(shot.bytes));
  conforms(await standin.call('GET', `/tabs/${UNKNOWN}/screenshot?userId=${USER}`), 'get', '/tabs/{tabId}/screenshot', 404);
});

test('POST /tabs/{tabId}/evaluate: 200 with the result, 400 without an expression, 404', async () => {
  const path = '/tabs/{tabId}/evaluate';
  const body = conforms(await standin.call('POST', `/tabs/${tabId}/evaluate`, { userId: USER, expression: '6 * 7' }), 'post', path, 200);
  assert.equal(body.result, 42);
  conforms(await standin.call('POST', `/tabs/${tabId}/evaluate`, { userId: USER }), 'post', path, 400);
  conforms(await standin.call('POST', `/tabs/${UNKNOWN}/evaluate`, { userId: USER, expression: '1' }), 'post', path, 404);
});

test('DELETE /tabs/{tabId}: 200; afterwards the tab is gone (410 browser_restarted for its UUID, as server.js within 5 min of launch)', async () => {
  conforms(await standin.call('DELETE', `/tabs/${tabId}?userId=${USER}`), 'delete', '/tabs/{tabId}', 200);
  const gone = await standin.call('GET', `/tabs/${tabId}/snapshot?userId=${USER}`);
  assert.equal(gone.status, 410);
  assert.deepEqual(gone.json, { error: 'Tab no longer exists (browser was restarted). Create a new tab.', code: 'browser_restarted' });
  assert.equal(contract.validate('/tabs/{tabId}/snapshot', 'get', 404, gone.json), null, 'the 410 body is a Camofox Error');
  conforms(await standin.call('DELETE', `/tabs/${tabId}?userId=${USER}`), 'delete', '/tabs/{tabId}', 200);
  const listed = conforms(await standin.call('GET', `/tabs?userId=${USER}`), 'get', '/tabs', 200);
  assert.deepEqual(listed.tabs, []);
});

test('DELETE /sessions/{userId}: 200, also for a user it does not know', async () => {
  conforms(await standin.call('DELETE', `/sessions/${USER}`), 'delete', '/sessions/{userId}', 200, ['closed']);
  conforms(await standin.call('DELETE', '/sessions/nobody'), 'delete', '/sessions/{userId}', 200, ['closed']);
});

test('Camofox has no console route: Express\' plain 404, as for any unknown path', async () => {
  const r = await standin.call('GET', `/tabs/${UNKNOWN}/console?userId=${USER}`);
  assert.equal(r.status, 404);
  assert.match(r.contentType, /^text\/html/);
  assert.match(r.bytes.toString('utf8'), new RegExp(`<pre>Cannot GET /tabs/${UNKNOWN}/console</pre>`));
});
