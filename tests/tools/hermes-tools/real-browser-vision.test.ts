import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { imageParts, messageText, startScriptedModel, type ModelRequest, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { browse, startFakeCamofox, type FakeCamofox } from '../../helpers/browser.js';
import { openSession } from '../../helpers/gateway.js';
import { pngHeader } from '../../helpers/hermes-tools.js';
import { startRealTools, type RealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';

// browser_vision end to end when Hermes' real tool server offers vision_analyze (its auxiliary
// vision client at a scripted OpenAI-compatible model): the screenshot from Camofox (a fake: it is
// not Hermes) is saved, then analysed by the tool server's vision_analyze on that file (as Hermes'
// browser_vision hands its screenshot to the vision model); with annotate, the snapshot goes along.

const temp = tempDirs();
const ANALYSIS = 'A page with one button labelled Go.';
let camofox: FakeCamofox;
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
  camofox = await startFakeCamofox({
    reply: (r) => {
      if (r.method === 'POST' && r.path === '/tabs') return { status: 200, body: { tabId: 'tab-1' } };
      if (r.path.startsWith('/tabs/tab-1/snapshot')) return { status: 200, body: { url: 'http://10.9.8.7/', snapshot: '- button "Go" [e1]', refsCount: 1 } };
      if (r.path.startsWith('/tabs/tab-1/screenshot')) return { status: 200, body: pngHeader(1280, 720) };
      return { status: 404, body: { error: 'Not found' } };
    },
  });
  model = await startScriptedModel({ fallback: { text: ANALYSIS } });
  real = await startRealTools(temp.make('hmcp-real-browser-vision-'), {
    config: { browser: { allow_private_urls: true }, auxiliary: { vision: { base_url: model.baseUrl, api_key: 'sk-scripted', model: 'scripted-vision' } } },
    env: { CAMOFOX_URL: camofox.url },
  });
  ({ client, token } = await openSession(real.gw.mcpUrl));
  const nav = await browse(client, token, 'browser_navigate', { url: 'http://10.9.8.7/' });
  assert.equal(nav.isError, false, nav.text);
});

after(async () => {
  await client?.close();
  await real?.close();
  await model?.close();
  await camofox?.close();
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
  assert.deepEqual(readFileSync(path), pngHeader(1280, 720));
  assert.deepEqual(r.data, { success: true, analysis: ANALYSIS, screenshot_path: path });
  const asked = lastAsked();
  assert.match(asked.text, /What is on the page\?/);
  assert.deepEqual(asked.images, [`data:image/png;base64,${pngHeader(1280, 720).toString('base64')}`], 'the saved screenshot went to the model');
});

test('with annotate, the snapshot goes along with the question', async () => {
  const r = await browse(client, token, 'browser_vision', { question: 'Which ref is the button?', annotate: true });
  assert.equal(r.isError, false, r.text);
  const { text } = lastAsked();
  assert.match(text, /Which ref is the button\?\n\n.*\n- button "Go" \[e1\]/s);
  assert.deepEqual(real.egress, []);
});
