import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { startFixturePages, type FixturePages } from '../../fixtures/camofox/pages.js';
import { ALLOW_LOOPBACK_PAGES, homeWithConfig } from '../../helpers/browser.js';
import { pngSize, startStandin, type Standin } from '../../helpers/camofox.js';
import { connect, openSession, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { type HostedView, ViewBrowser, viewAsHosted, type ViewHost, withHost, screenshotsDir } from '../../helpers/view-host.js';

// The result view's browser cards in Chromium, from real browser tool results: a gateway wired to
// the Camofox stand-in (which drives its own Chromium over the fixture pages), the results handed
// to the view as a host hands them. One screenshot per card goes to this test's temp directory, or
// to VIEW_SCREENSHOTS_DIR when `npm run docs:view-screenshots` asks for them.

const USER = 'gateway_view_user'; // a fixed Camofox user (CAMOFOX_USER_ID), so the test can reach the owner's tab
const shots = screenshotsDir('view-browser-shots-');
const shotsDir = shots.dir;
const HOSTILE_TEXT = `<script>console.log('PWNED-text')</script>`;
const HOSTILE_HEADING = `<img src=x onerror=console.log('PWNED-heading')>`;
const HOSTILE_ALT = `<b>bold</b><img src=x onerror=console.log('PWNED-alt')>`;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A page whose heading, text and image alt text are markup, served on loopback beside the fixture pages. */
async function startHostilePage(redPng: string): Promise<{ url: string; close(): Promise<void> }> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hostile</title></head><body><h1>${escapeHtml(HOSTILE_HEADING)}</h1><p>${escapeHtml(HOSTILE_TEXT)}</p><img src="${redPng}" alt="${escapeHtml(HOSTILE_ALT)}"></body></html>`;
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hostile.html`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('the result view\'s browser cards, from real browser tool results', () => {
  let pages: FixturePages;
  let standin: Standin;
  let home: string;
  let gw: TestGateway;
  let browser: ViewBrowser;
  let model: Client;
  let token: string;
  let html: HostedView;
  let hostile: { url: string; close(): Promise<void> };

  before(async () => {
    pages = await startFixturePages();
    hostile = await startHostilePage(`${pages.origin}/red.png`);
    standin = await startStandin();
    home = homeWithConfig(ALLOW_LOOPBACK_PAGES);
    gw = await startTestGateway({ home, env: { CAMOFOX_URL: `http://127.0.0.1:${standin.port}`, CAMOFOX_USER_ID: USER } });
    browser = await ViewBrowser.launch();
    ({ client: model, token } = await openSession(gw.mcpUrl, 'modern', { views: true }));
    html = await viewAsHosted(model);
  });
  after(async () => {
    await model?.close();
    await browser?.close();
    await gw?.close();
    await standin?.stop();
    await hostile?.close();
    await pages?.close();
    if (home) rmSync(home, { recursive: true, force: true });
    shots.remove();
  });

  /** A browser tool through tool_call by the "model" (its session), and the view shown its input and result. */
  async function shown(host: ViewHost, name: string, args: Record<string, unknown> = {}) {
    const { result, data } = await viaBridge(model, name, args, token);
    await host.deliver({ calls: [{ name, arguments: args }], session_token: token }, result);
    return { result, data };
  }

  async function navigated(url: string) {
    const { data } = await viaBridge(model, 'browser_navigate', { url }, token);
    assert.equal(data.url, url, JSON.stringify(data));
  }

  const text = async (host: ViewHost, selector: string) => (await host.view.locator(selector).textContent()) ?? '';
  /** The card's facts as `name: value` pairs. */
  async function factsOf(host: ViewHost): Promise<Record<string, string>> {
    const names = await host.view.locator('.facts dt').allTextContents();
    const values = await host.view.locator('.facts dd').allTextContents();
    return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
  }

  test('browser_navigate: the URL the page landed on and its element count, no empty title, the snapshot on demand', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const url = `${pages.origin}/form.html`;
      const { data } = await shown(host, 'browser_navigate', { url });
      assert.equal(data.title, '', 'Camofox reports no title');
      await host.view.locator('.card-browser').waitFor();
      assert.equal(await text(host, '.card-title'), 'browser_navigate');
      assert.deepEqual(await factsOf(host), { url, elements: String(data.element_count) });
      const snapshot = host.view.locator('details.block');
      assert.equal(await snapshot.getAttribute('open'), null, 'the snapshot is collapsed');
      await snapshot.locator('summary').click();
      assert.equal(await text(host, 'pre.snapshot'), data.snapshot);
      assert.match(await text(host, 'pre.snapshot'), /textbox "Name" \[e\d+\]/);
      await host.screenshot(shotsDir, 'browser-navigate');
    });
  });

  test('browser_snapshot: the element count and the snapshot; no title or URL, as the result carries none', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      await navigated(`${pages.origin}/second.html`);
      const { data } = await shown(host, 'browser_snapshot');
      assert.equal('url' in data || 'title' in data, false, 'the real result has neither');
      await host.view.locator('.card-browser').waitFor();
      assert.deepEqual(await factsOf(host), { elements: String(data.element_count) });
      await host.view.locator('details.block summary').click();
      assert.equal(await text(host, 'pre.snapshot'), data.snapshot);
      assert.match(data.snapshot as string, /link "Back to the form"/);
      await host.screenshot(shotsDir, 'browser-snapshot');
    });
  });

  test('browser_get_images: each image\'s alt text and URL as a list, nothing loaded from the page', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      await navigated(`${pages.origin}/form.html`);
      const { data } = await shown(host, 'browser_get_images');
      const images = data.images as Array<{ alt: string; src: string }>;
      assert.equal(images.length, 2);
      await host.view.locator('.card-browser ul.files').waitFor();
      const expected = images.map((i) => [i.alt, i.src].filter(Boolean).join(': '));
      assert.deepEqual(await host.view.locator('ul.files li').allTextContents(), expected);
      assert.match(expected[0]!, /^Red square\b/);
      assert.equal(await host.view.locator('#root img').count(), 0, 'a listed image is text, not an <img>');
      await host.screenshot(shotsDir, 'browser-images');
    });
  });

  // No browser tool's result carries an image block (browser_vision saves its screenshot to a file
  // and answers the path), so the screenshot card is checked on a real browser_snapshot result
  // given the stand-in's real screenshot of the same tab, as a host would pass an image block on.
  test('a screenshot the result carries is shown as an <img> whose src is that data: URL', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      await navigated(`${pages.origin}/form.html`);
      const { tabs } = (await standin.call('GET', `/tabs?userId=${USER}`)).json as { tabs: Array<{ tabId: string }> };
      assert.equal(tabs.length, 1);
      const shot = await standin.call('GET', `/tabs/${tabs[0]!.tabId}/screenshot?userId=${USER}`);
      assert.ok(pngSize(shot.bytes), 'the stand-in answered a PNG');
      const data = shot.bytes.toString('base64');
      const { result } = await viaBridge(model, 'browser_snapshot', {}, token);
      const withShot = { ...result, content: [...result.content, { type: 'image', data, mimeType: 'image/png' }] };
      await host.deliver({ calls: [{ name: 'browser_snapshot', arguments: {} }] }, withShot);
      const img = host.view.locator('.card-browser img.screenshot');
      await img.waitFor();
      assert.equal(await img.getAttribute('src'), `data:image/png;base64,${data}`);
      assert.equal(await img.evaluate((e) => (e as HTMLImageElement).naturalWidth), pngSize(shot.bytes)!.width, 'the image decoded under the CSP');
      await host.screenshot(shotsDir, 'browser-screenshot');
    });
  });

  test('a page\'s heading, text and alt text that are markup render as text and run nothing', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      await shown(host, 'browser_navigate', { url: hostile.url });
      await host.view.locator('.card-browser details.block summary').click();
      const snapshot = await text(host, 'pre.snapshot');
      assert.ok(snapshot.includes(HOSTILE_HEADING) && snapshot.includes(HOSTILE_TEXT), snapshot);
      await shown(host, 'browser_get_images');
      await host.view.locator('.card-browser ul.files').waitFor();
      assert.ok((await text(host, 'ul.files')).startsWith(HOSTILE_ALT), await text(host, 'ul.files'));
      assert.equal(await host.view.locator('#root img, #root b, #root script').count(), 0, 'no element came from the page');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(host.console.filter((l) => l.includes('PWNED')), []);
    });
  });

  test('a stale tab: STALE_TAB with the gateway\'s message and the hint to navigate again', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      await navigated(`${pages.origin}/form.html`);
      const { tabs } = (await standin.call('GET', `/tabs?userId=${USER}`)).json as { tabs: Array<{ tabId: string }> };
      await standin.call('DELETE', `/tabs/${tabs[0]!.tabId}?userId=${USER}`); // Camofox reaped it
      const { result, data } = await shown(host, 'browser_snapshot');
      assert.equal(result.isError, true);
      assert.equal(data.error, 'STALE_TAB');
      await host.view.locator('.card-error').waitFor();
      assert.equal(await text(host, '.card-title'), 'browser_snapshot failed');
      assert.equal(await text(host, '.error-code'), 'STALE_TAB');
      assert.equal(await text(host, '.error-message'), data.message);
      assert.match(await text(host, '.error-hint'), /navigate again/);
      await host.screenshot(shotsDir, 'browser-stale-tab');
    });
  });

  // Hermes' vision model is out of reach here (no tool server with vision_analyze is configured),
  // so browser_vision answers VISION_UNAVAILABLE after saving the screenshot; the view says so.
  test('browser_vision without a vision model: the VISION_UNAVAILABLE card with the gateway\'s message', async () => {
    await withHost(browser.open(await connect(gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      await navigated(`${pages.origin}/form.html`);
      const { data } = await shown(host, 'browser_vision', { question: 'What colour is the square?' });
      assert.equal(data.error, 'VISION_UNAVAILABLE');
      await host.view.locator('.card-error').waitFor();
      assert.equal(await text(host, '.error-code'), 'VISION_UNAVAILABLE');
      assert.equal(await text(host, '.error-message'), data.message);
      assert.equal(await host.view.locator('#root img').count(), 0, 'no screenshot is made up');
    });
  });
});
