import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { browse } from '../../helpers/browser.js';
import { connect, openSession, viaBridge } from '../../helpers/gateway.js';
import { startRealBrowserVision, VISION_PAGE, type RealBrowserVision } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { type HostedView, ViewBrowser, viewAsHosted, withHost, screenshotsDir } from '../../helpers/view-host.js';

// The browser_vision card from a real analysis: Hermes' real tool server answers vision_analyze
// with its auxiliary vision client at a scripted OpenAI-compatible model (the paid provider's
// stand-in), on the screenshot the gateway saved from a Camofox stand-in (Camofox is not Hermes).
// Its result carries the analysis and where the screenshot was saved, not the image itself, so
// the card shows those two and no picture.

const ANALYSIS = 'A page with one button labelled Go.';
const shots = screenshotsDir('view-vision-shots-');
const shotsDir = shots.dir;

describe('the result view shows a real browser_vision analysis', () => {
  const temp = tempDirs();
  let setup: RealBrowserVision;
  let client: Client;
  let token: string;
  let browser: ViewBrowser;
  let html: HostedView;

  before(async () => {
    setup = await startRealBrowserVision(temp.make('hmcp-view-vision-'), ANALYSIS);
    browser = await ViewBrowser.launch();
    ({ client, token } = await openSession(setup.real.gw.mcpUrl, 'modern', { views: true }));
    const nav = await browse(client, token, 'browser_navigate', { url: VISION_PAGE });
    assert.equal(nav.isError, false, nav.text);
    html = await viewAsHosted(client);
  });

  after(async () => {
    await client?.close();
    await browser?.close();
    await setup?.close();
    temp.removeAll();
    shots.remove();
  });

  test('the analysis and where the screenshot was saved, and no made-up picture', async () => {
    await withHost(browser.open(await connect(setup.real.gw.mcpUrl, 'modern', { views: true }), html), async (host) => {
      const args = { question: 'What is on the page?' };
      const { result, data } = await viaBridge(client, 'browser_vision', args, token);
      assert.equal(data.analysis, ANALYSIS, 'Hermes\' vision_analyze answered through the scripted model');
      await host.deliver({ calls: [{ name: 'browser_vision', arguments: args }], session_token: token }, result);
      await host.view.locator('.card-browser .analysis').waitFor();
      assert.equal(await host.view.locator('.card-browser .analysis').textContent(), ANALYSIS);
      const facts = await host.view.locator('.card-browser .facts').textContent();
      assert.ok(facts!.includes(data.screenshot_path as string), facts!);
      assert.equal(await host.view.locator('#root img').count(), 0, 'the result carries no image, so none is shown');
      await host.screenshot(shotsDir, 'browser-vision');
    });
  });
});
