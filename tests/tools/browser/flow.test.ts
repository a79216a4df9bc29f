import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pngSize } from '../../helpers/camofox.js';
import { browserSuite } from './fixture.js';

// The ten browser tools end to end: a real gateway, a real SDK client with a session token, and
// the Camofox stand-in driving Chromium over the fixture pages.

const b = browserSuite();

/** The ref on the snapshot line `- role "name" [eN]`. */
function refOf(snapshot: string, role: string, name: string): string {
  const m = new RegExp(`- ${role} "${name}" \\[(e\\d+)\\]`).exec(snapshot);
  assert.ok(m, `no ref for ${role} "${name}" in:\n${snapshot}`);
  return `@${m[1]}`;
}

async function snapshot(): Promise<string> {
  const r = await b.browse('browser_snapshot');
  assert.equal(r.isError, false, r.text);
  return r.data.snapshot as string;
}

describe('browser tools against Camofox', () => {
  test('navigate answers Hermes\' shape with a snapshot that has refs', async () => {
    const r = await b.browse('browser_navigate', { url: `${b.pages.origin}/form.html` });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.data.success, true);
    assert.equal(r.data.url, `${b.pages.origin}/form.html`);
    assert.equal(r.data.title, '');
    assert.match(r.data.snapshot as string, /- textbox "Name" \[e\d+\]/);
    assert.equal(r.data.element_count, 4);
  });

  test('type and click by ref change the page', async () => {
    const snap = await snapshot();
    const typed = await b.browse('browser_type', { ref: refOf(snap, 'textbox', 'Name'), text: 'Ada' });
    assert.deepEqual(typed.data, { success: true, typed: 'Ada', element: refOf(snap, 'textbox', 'Name').slice(1) });
    const clicked = await b.browse('browser_click', { ref: refOf(snap, 'button', 'Greet') });
    assert.equal(clicked.isError, false, clicked.text);
    assert.deepEqual(clicked.data, { success: true, clicked: refOf(snap, 'button', 'Greet').slice(1), url: `${b.pages.origin}/form.html` });
    assert.match(await snapshot(), /Hello, Ada!/);
  });

  test('press sends a key to the focused field (Enter submits the form)', async () => {
    const snap = await snapshot();
    await b.browse('browser_type', { ref: refOf(snap, 'textbox', 'Name'), text: 'Grace' });
    const r = await b.browse('browser_press', { key: 'Enter' });
    assert.deepEqual(r.data, { success: true, pressed: 'Enter' });
    assert.match(await snapshot(), /Submitted: Grace/);
  });

  test('scroll moves the viewport by Hermes\' five steps', async () => {
    const down = await b.browse('browser_scroll', { direction: 'down' });
    assert.deepEqual(down.data, { success: true, scrolled: 'down' });
    const y = await b.browse('browser_console', { expression: 'window.scrollY' });
    assert.equal(y.data.result, 2500);
    assert.equal(y.data.result_type, 'int');
    await b.browse('browser_scroll', { direction: 'up' });
    assert.equal((await b.browse('browser_console', { expression: 'window.scrollY' })).data.result, 0);
  });

  test('get_images lists the page\'s images from the snapshot', async () => {
    const r = await b.browse('browser_get_images');
    assert.equal(r.data.count, 2);
    assert.deepEqual((r.data.images as Array<{ alt: string }>).map((i) => i.alt), ['Red square', 'Another red square']);
  });

  test('console without an expression answers Hermes\' Camofox note; with one, the JSON value', async () => {
    const logs = await b.browse('browser_console');
    assert.deepEqual(logs.data, {
      success: true,
      console_messages: [],
      js_errors: [],
      total_messages: 0,
      total_errors: 0,
      note: 'Console log capture is not available with the Camofox backend. Use browser_snapshot to inspect page state.',
    });
    const title = await b.browse('browser_console', { expression: 'JSON.stringify({title: document.title, n: 2})' });
    assert.deepEqual(title.data, { success: true, result: { title: 'Stand-in form', n: 2 }, result_type: 'dict' });
  });

  test('console refuses sensitive primitives (Hermes\' default evaluate policy)', async () => {
    const r = await b.browse('browser_console', { expression: 'document["coo" + "kie"]' });
    assert.equal(r.isError, true);
    assert.equal(r.data.error, 'BROWSER_EVALUATE_BLOCKED');
  });

  test('back returns to the previous page', async () => {
    const snap = await snapshot();
    const link = await b.browse('browser_click', { ref: refOf(snap, 'link', 'Second page') });
    assert.equal(link.data.url, `${b.pages.origin}/second.html`);
    const back = await b.browse('browser_back');
    assert.deepEqual(back.data, { success: true, url: `${b.pages.origin}/form.html` });
  });

  test('vision saves a real screenshot, then says its analysis is not available', async () => {
    const r = await b.browse('browser_vision', { question: 'What colour is the square?' });
    assert.equal(r.isError, true);
    assert.equal(r.data.error, 'VISION_UNAVAILABLE');
    const path = r.data.screenshot_path as string;
    assert.equal(path.startsWith(join(b.home, 'browser_screenshots', 'browser_screenshot_')), true, path);
    const size = pngSize(readFileSync(path));
    assert.ok(size && size.width === 1280 && size.height > 0, `not the page's PNG: ${JSON.stringify(size)}`);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal('analysis' in r.data, false, 'no analysis is made up');
  });

  test('an unknown ref and a malformed ref have their own codes', async () => {
    const unknown = await b.browse('browser_click', { ref: '@e999' });
    assert.equal(unknown.data.error, 'BROWSER_REF_UNKNOWN', unknown.text);
    const malformed = await b.browse('browser_click', { ref: 'button.submit' });
    assert.equal(malformed.data.error, 'BROWSER_REF_INVALID');
  });

  test('oversized text is refused before it is typed', async () => {
    const r = await b.browse('browser_type', { ref: '@e1', text: 'x'.repeat(10_001) });
    assert.equal(r.data.error, 'BROWSER_INPUT_TOO_LARGE');
  });

  test('a long page\'s snapshot is cut at a line boundary with Hermes\' note', async () => {
    await b.browse('browser_navigate', { url: `${b.pages.origin}/long.html` });
    const snap = await snapshot();
    assert.ok(snap.length <= 15_000, `snapshot is ${snap.length} characters`);
    assert.match(snap, /\n\[\.\.\. \d+ more lines truncated, use browser_snapshot for full content\]$/);
    assert.match(snap.split('\n').slice(-3)[0]!, /^\s*- listitem: Row \d+ of the long list, padded with words$/, 'the last kept line is whole');
  });
});
