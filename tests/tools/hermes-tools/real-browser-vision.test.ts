import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { imageParts, messageText, type ModelRequest, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { browse } from '../../helpers/browser.js';
import { openSession } from '../../helpers/gateway.js';
import { startRealBrowserVision, VISION_PAGE, VISION_SCREENSHOT, type RealBrowserVision, type RealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';

// browser_vision end to end when Hermes' real tool server offers vision_analyze (its auxiliary
// vision client at a scripted OpenAI-compatible model): the screenshot from Camofox (a fake: it is
// not Hermes) is saved, then analysed by the tool server's vision_analyze on that file (as Hermes'
// browser_vision hands its screenshot to the vision model); with annotate, the snapshot goes along.

const temp = tempDirs();
const ANALYSIS = 'A page with one button labelled Go.';
let setup: RealBrowserVision;
let model: ScriptedModel;
let real: RealTools;
let client: Client;
let token: string;

/** What the vision model was sent last: its text and its images. */
function lastAsked(): { text: string; images: string[] } {
  const request: ModelRequest = model.chatRequests().at(-1)!;
  return { text: (request.body?.messages as Array<{ content: unknown }>).map((m) => messageText(m.content)).join('\n'), images: imageParts(request) };
}

before(async () => {
  setup = await startRealBrowserVision(temp.make('hmcp-real-browser-vision-'), ANALYSIS);
  ({ model, real } = setup);
  ({ client, token } = await openSession(real.gw.mcpUrl));
  const nav = await browse(client, token, 'browser_navigate', { url: VISION_PAGE });
  assert.equal(nav.isError, false, nav.text);
});

after(async () => {
  await client?.close();
  await setup?.close();
  temp.removeAll();
});

test('its description promises the analysis this gateway can make', () => {
  const description = real.gw.gateway.catalog.get('browser_vision')!.tool.description;
  assert.match(description, /Hermes' vision model answers the question/);
  assert.doesNotMatch(description, /VISION_UNAVAILABLE/);
});

test('the screenshot is analysed by the tool server\'s vision_analyze, on the saved file', async () => {
  const r = await browse(client, token, 'browser_vision', { question: 'What is on the page?' });
  assert.equal(r.isError, false, r.text);
  const path = r.data.screenshot_path as string;
  assert.equal(path.startsWith(join(real.home, 'browser_screenshots', 'browser_screenshot_')), true, path);
  assert.deepEqual(readFileSync(path), VISION_SCREENSHOT);
  assert.deepEqual(r.data, { success: true, analysis: ANALYSIS, screenshot_path: path });
  const asked = lastAsked();
  assert.match(asked.text, /What is on the page\?/);
  assert.deepEqual(asked.images, [`data:image/png;base64,${VISION_SCREENSHOT.toString('base64')}`], 'the saved screenshot went to the model');
});

test('with annotate, the snapshot goes along with the question', async () => {
  const r = await browse(client, token, 'browser_vision', { question: 'Which ref is the button?', annotate: true });
  assert.equal(r.isError, false, r.text);
  const { text } = lastAsked();
  assert.match(text, /Which ref is the button\?\n\n.*\n- button "Go" \[e1\]/s);
  assert.deepEqual(real.egress, []);
});
