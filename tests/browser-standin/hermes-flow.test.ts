import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFixturePages, type FixturePages } from '../fixtures/camofox/pages.js';
import { pngSize, startStandin, type Standin } from '../helpers/camofox.js';

// The Camofox stand-in driven over HTTP the way Hermes' tools/browser_camofox.py drives Camofox:
// POST /tabs with listItemId, snapshot refs, type/click/press by ref, scroll ×5, back, images,
// screenshot bytes, and evaluate (how a console hook is read back; Camofox has no console route).

const USER = 'hermes_0123456789';
let standin: Standin;
let pages: FixturePages;
let tabId: string;

const body = (r: { json: unknown }) => r.json as Record<string, unknown>;

async function snapshot(): Promise<string> {
  const r = await standin.call('GET', `/tabs/${tabId}/snapshot?userId=${USER}`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return body(r).snapshot as string;
}

/** The ref Camofox put on the line `- role "name" [eN]`. */
function refOf(snap: string, role: string, name: string): string {
  const m = new RegExp(`^\\s*- ${role} "${name}" \\[(e\\d+)\\]`, 'm').exec(snap);
  assert.ok(m, `no ref for ${role} "${name}" in:\n${snap}`);
  return m[1]!;
}

async function evaluate(expression: string): Promise<unknown> {
  const r = await standin.call('POST', `/tabs/${tabId}/evaluate`, { userId: USER, expression });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return body(r).result;
}

before(async () => {
  pages = await startFixturePages();
  standin = await startStandin();
  const r = await standin.call('POST', '/tabs', { userId: USER, listItemId: 'task_default', url: `${pages.origin}/form.html` });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  tabId = body(r).tabId as string;
  assert.equal(body(r).url, `${pages.origin}/form.html`);
});

after(async () => {
  await standin?.stop();
  await pages?.close();
});

describe('a Hermes-style browser session on the stand-in', () => {
  test('the snapshot is an aria tree with [eN] refs on interactive roles only', async () => {
    const snap = await snapshot();
    assert.match(snap, /^- heading "Greeting form" \[level=1\]$/m);
    assert.match(snap, /^- textbox "Name" \[e1\]$/m);
    assert.match(snap, /^- button "Greet" \[e2\]$/m);
    assert.match(snap, /^- checkbox "Agree" \[e3\]$/m);
    assert.match(snap, /^- link "Second page" \[e4\]:\n {2}- \/url: \/second\.html$/m);
    assert.match(snap, /^- img "Red square"$/m, 'images carry no ref');
    assert.doesNotMatch(snap, /heading[^\n]*\[e\d+\]|paragraph[^\n]*\[e\d+\]/);
    const r = await standin.call('GET', `/tabs/${tabId}/snapshot?userId=${USER}`);
    assert.equal(body(r).refsCount, 4);
    assert.equal(body(r).truncated, false);
  });

  test('type by ref then press Enter submits the form', async () => {
    const snap = await snapshot();
    const typed = await standin.call('POST', `/tabs/${tabId}/type`, { userId: USER, ref: refOf(snap, 'textbox', 'Name'), text: 'Ada' });
    assert.deepEqual([typed.status, typed.json], [200, { ok: true }]);
    assert.equal(await evaluate('document.getElementById("name").value'), 'Ada');
    const pressed = await standin.call('POST', `/tabs/${tabId}/press`, { userId: USER, key: 'Enter' });
    assert.deepEqual([pressed.status, pressed.json], [200, { ok: true }]);
    assert.match(await snapshot(), /^- paragraph: "Submitted: Ada"$|^- paragraph: Submitted: Ada$/m);
  });

  test('click by ref runs the page handler, and a console hook installed through evaluate captures its log', async () => {
    await evaluate('window.__logs = []; const log = console.log; console.log = (...a) => { window.__logs.push(a.join(" ")); log(...a); }; true');
    const clicked = await standin.call('POST', `/tabs/${tabId}/click`, { userId: USER, ref: refOf(await snapshot(), 'button', 'Greet') });
    assert.equal(clicked.status, 200, JSON.stringify(clicked.json));
    assert.deepEqual(clicked.json, { ok: true, url: `${pages.origin}/form.html`, refsAvailable: true });
    assert.match(await snapshot(), /^- paragraph: Hello, Ada!$/m);
    assert.deepEqual(await evaluate('window.__logs'), ['greeted Ada']);
  });

  test('Hermes scrolls five times: 5 × 500 px down, then back up', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await standin.call('POST', `/tabs/${tabId}/scroll`, { userId: USER, direction: 'down' });
      assert.deepEqual([r.status, r.json], [200, { ok: true }]);
    }
    assert.equal(await evaluate('window.scrollY'), 2500);
    await standin.call('POST', `/tabs/${tabId}/scroll`, { userId: USER, direction: 'up', amount: 1000 });
    assert.equal(await evaluate('window.scrollY'), 1500);
  });

  test('images: /images lists src, alt and natural size; the snapshot has the img lines Hermes parses', async () => {
    const r = await standin.call('GET', `/tabs/${tabId}/images?userId=${USER}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, {
      tabId,
      images: [
        { src: `${pages.origin}/red.png`, alt: 'Red square', width: 2, height: 3 },
        { src: `${pages.origin}/red.png?again`, alt: 'Another red square', width: 2, height: 3 },
      ],
    });
    assert.deepEqual((await snapshot()).match(/^- img "[^"]*"/gm), ['- img "Red square"', '- img "Another red square"']);
  });

  test('the screenshot is raw PNG bytes of the viewport', async () => {
    const r = await standin.call('GET', `/tabs/${tabId}/screenshot?userId=${USER}`);
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'image/png');
    const size = pngSize(r.bytes);
    assert.ok(size && size.width > 0 && size.height > 0, 'a PNG');
    const full = await standin.call('GET', `/tabs/${tabId}/screenshot?userId=${USER}&fullPage=true`);
    assert.ok(pngSize(full.bytes)!.height > 4000, 'fullPage=true captures the tall page');
  });

  test('clicking a link navigates; back returns to the form with fresh refs', async () => {
    const clicked = await standin.call('POST', `/tabs/${tabId}/click`, { userId: USER, ref: refOf(await snapshot(), 'link', 'Second page') });
    assert.equal(body(clicked).url, `${pages.origin}/second.html`);
    assert.match(await snapshot(), /^- link "Back to the form" \[e1\]:/m);
    const back = await standin.call('POST', `/tabs/${tabId}/back`, { userId: USER });
    assert.deepEqual([back.status, back.json], [200, { ok: true, url: `${pages.origin}/form.html` }]);
    assert.match(await snapshot(), /^- button "Greet" \[e2\]$/m);
  });

  test('navigate answers ok with refsAvailable; a ref from another page is refused as stale (422)', async () => {
    const nav = await standin.call('POST', `/tabs/${tabId}/navigate`, { userId: USER, url: `${pages.origin}/second.html` });
    assert.deepEqual(nav.json, { ok: true, tabId, url: `${pages.origin}/second.html`, refsAvailable: true });
    const stale = await standin.call('POST', `/tabs/${tabId}/click`, { userId: USER, ref: 'e4' });
    assert.equal(stale.status, 422);
    assert.deepEqual(stale.json, {
      error: 'Unknown ref: e4 (valid refs: e1-e1, 1 total). Refs reset after navigation - call snapshot first.',
      retryable: true,
      code: 'stale_refs',
      recovery: 'snapshot_then_retry',
      ref: 'e4',
    });
  });

  test('a snapshot over 80,000 characters is paged, each page ending with the tail (pagination links)', async () => {
    await standin.call('POST', `/tabs/${tabId}/navigate`, { userId: USER, url: `${pages.origin}/long.html` });
    const first = body(await standin.call('GET', `/tabs/${tabId}/snapshot?userId=${USER}`));
    assert.equal(first.truncated, true);
    assert.equal(first.hasMore, true);
    const total = first.totalChars as number;
    const next = first.nextOffset as number;
    assert.ok(total > 80_000 && next > 0 && next < total);
    const text1 = first.snapshot as string;
    assert.ok(text1.length <= 80_000);
    assert.match(text1, new RegExp(`\\[\\.\\.\\. truncated at char ${next} of ${total}\\. Call snapshot with offset=${next} to see more\\.`));
    assert.match(text1, /- link "Next page" \[e1\]:\n {2}- \/url: \/second\.html$/);
    const last = body(await standin.call('GET', `/tabs/${tabId}/snapshot?userId=${USER}&offset=${next}`));
    assert.equal(last.hasMore, false);
    assert.equal(last.nextOffset, null);
    assert.match(last.snapshot as string, /- link "Next page" \[e1\]:\n {2}- \/url: \/second\.html$/);
    assert.ok((last.snapshot as string).includes('Row 2499 of the long list'));
    assert.ok(!text1.includes('Row 2000 of the long list'), 'the first page stops before the middle');
    assert.ok((last.snapshot as string).includes('Row 2000 of the long list'), 'the second page carries on from the offset');
  });
});
