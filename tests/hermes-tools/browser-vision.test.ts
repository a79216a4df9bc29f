import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { browse, homeWithConfig, startFakeCamofox, type FakeCamofox } from '../helpers/browser.js';
import { openSession, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { pngHeader, toolServerStandIn, type ToolServerStandIn } from '../helpers/hermes-tools.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// browser_vision end to end when Hermes' tool server offers vision_analyze: the screenshot from
// Camofox is saved, then analysed by the tool server's vision_analyze on that file (as Hermes'
// browser_vision hands its screenshot to the vision model); with annotate, the snapshot goes along.

const temp = tempDirs();
let camofox: FakeCamofox;
let gw: TestGateway;
let client: Client;
let token: string;
let standIn: ToolServerStandIn;

before(async () => {
  camofox = await startFakeCamofox({
    reply: (r) => {
      if (r.method === 'POST' && r.path === '/tabs') return { status: 200, body: { tabId: 'tab-1' } };
      if (r.path.startsWith('/tabs/tab-1/snapshot')) return { status: 200, body: { url: 'http://10.9.8.7/', snapshot: '- button "Go" [e1]', refsCount: 1 } };
      if (r.path.startsWith('/tabs/tab-1/screenshot')) return { status: 200, body: pngHeader(1280, 720) };
      return { status: 404, body: { error: 'Not found' } };
    },
  });
  standIn = toolServerStandIn(temp.make('hmcp-tools-'));
  const home = homeWithConfig({ browser: { allow_private_urls: true } });
  gw = await startTestGateway({ home, env: { CAMOFOX_URL: camofox.url, HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command } });
  // The web provider's start-up smoke calls run in the background: done first, so the stand-in's last call is the test's.
  await waitFor(() => gw.logs.some((l) => l.event === 'web_provider_checked'), 30_000, 'the web smoke calls');
  ({ client, token } = await openSession(gw.mcpUrl));
  const nav = await browse(client, token, 'browser_navigate', { url: 'http://10.9.8.7/' });
  assert.equal(nav.isError, false, nav.text);
});

after(async () => {
  await client?.close();
  await gw?.close();
  await camofox?.close();
  temp.removeAll();
});

test('its description promises the analysis this gateway can make', () => {
  const description = gw.gateway.catalog.get('browser_vision')!.tool.description;
  assert.match(description, /Hermes' vision model answers the question/);
  assert.doesNotMatch(description, /VISION_UNAVAILABLE/);
});

test('the screenshot is analysed by the tool server\'s vision_analyze, on the saved file', async () => {
  const r = await browse(client, token, 'browser_vision', { question: 'What is on the page?' });
  assert.equal(r.isError, false, r.text);
  const path = r.data.screenshot_path as string;
  assert.equal(path.startsWith(join(gw.home, 'browser_screenshots', 'browser_screenshot_')), true, path);
  assert.deepEqual(readFileSync(path), pngHeader(1280, 720));
  assert.deepEqual(r.data, { success: true, analysis: 'A 1280x720 PNG; asked: What is on the page?', screenshot_path: path });
  assert.deepEqual(standIn.calls().at(-1), { name: 'vision_analyze', arguments: { image_url: path, question: 'What is on the page?' } });
});

test('with annotate, the snapshot goes along with the question', async () => {
  const r = await browse(client, token, 'browser_vision', { question: 'Which ref is the button?', annotate: true });
  assert.equal(r.isError, false, r.text);
  const sent = standIn.calls().at(-1)!.arguments.question as string;
  assert.match(sent, /^Which ref is the button\?\n\n.*\n- button "Go" \[e1\]$/s);
});
