import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';
import { pngHeader, toolServerStandIn, type ToolServerStandIn } from '../helpers/hermes-tools.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// Each tool of Hermes' tool server through tool_call (the stand-in, through
// HERMES_MCP_HERMES_TOOLS_COMMAND): Hermes' JSON answer comes back as the structured result,
// redacted and capped like every result; execute_code's hermes_tools.web_search takes the same path.

const temp = tempDirs();
const MAX_OUTPUT = 20_000;
let gw: TestGateway;
let client: Client;
let standIn: ToolServerStandIn;

before(async () => {
  standIn = toolServerStandIn(temp.make('hmcp-tools-'), '--with', 'video_analyze'); // a Hermes that offers it
  gw = await startTestGateway({ env: { HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command }, limits: { maxOutputChars: MAX_OUTPUT } });
  // The web provider's start-up smoke calls (one web_search, one web_extract) run in the background:
  // done before the tests, so the stand-in's last calls are the tests' own.
  await waitFor(() => gw.logs.some((l) => l.event === 'web_provider_checked'), 30_000, 'the web smoke calls');
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  temp.removeAll();
});

test('web_search answers Hermes\' result shape', async () => {
  const r = await viaBridge(client, 'web_search', { query: 'gateways', limit: 1 });
  assert.equal(r.isError, false);
  assert.deepEqual(r.data, { success: true, data: { web: [{ title: 'Result for gateways', url: 'https://example.com/', description: 'About gateways', position: 1 }] } });
  assert.deepEqual(standIn.calls().at(-1), { name: 'web_search', arguments: { query: 'gateways', limit: 1 } });
});

test('a secret in the answer is redacted', async () => {
  const r = await viaBridge(client, 'web_search', { query: 'secret' });
  const text = JSON.stringify(r.result);
  assert.equal(text.includes('sk-proj-abcdefghijklmnopqrstuvwxyz0123456789'), false, text);
  assert.match(String((r.data.data as { web: Array<{ description: string }> }).web[0]!.description), /OPENAI_API_KEY=/);
});

test('a long web_extract answer is capped with a truncation receipt', async () => {
  const r = await viaBridge(client, 'web_extract', { urls: ['https://long.example/100000'] });
  assert.equal(r.data.truncated, true);
  const chars = r.result.content.reduce((n, b) => n + (b.text?.length ?? 0), 0);
  assert.ok(chars <= MAX_OUTPUT, `${chars} characters`);
});

test('arguments are checked against the tool server\'s schema before anything is sent', async () => {
  const before = standIn.calls().length;
  const r = await viaBridge(client, 'web_extract', { urls: ['https://a/', 'https://b/', 'https://c/', 'https://d/', 'https://e/', 'https://f/'] });
  assert.equal(r.data.error, 'INVALID_ARGUMENTS');
  assert.equal(standIn.calls().length, before);
});

test('vision_analyze, image_generate and video_analyze answer as Hermes does', async () => {
  const image = join(gw.home, 'square.png');
  writeFileSync(image, pngHeader(64, 48));
  const vision = await viaBridge(client, 'vision_analyze', { image_url: image, question: 'What shape?' });
  assert.deepEqual(vision.data, { success: true, analysis: 'A 64x48 PNG; asked: What shape?' });
  const generated = await viaBridge(client, 'image_generate', { prompt: 'a square', aspect_ratio: 'square' });
  assert.deepEqual(generated.data, { success: true, image: '/tmp/hermes-images/square.png', modality: 'image' });
  const video = await viaBridge(client, 'video_analyze', { video_url: '/tmp/clip.mp4', question: 'Who?' });
  assert.deepEqual(video.data, { success: true, analysis: 'A video at /tmp/clip.mp4; asked: Who?' });
});

test('execute_code: hermes_tools.web_search and web_extract go to the tool server', async () => {
  const code = [
    'from hermes_tools import web_search, web_extract',
    'print(web_search("from a script", limit=1)["data"]["web"][0]["title"])',
    'print(web_extract(["https://example.com/"])["results"][0]["title"])',
  ].join('\n');
  const r = await viaBridge(client, 'execute_code', { code });
  assert.equal(r.data.status, 'success', String(r.data.output));
  assert.equal(String(r.data.output), 'Result for from a script\nExample Domain\n');
  assert.deepEqual(standIn.calls().at(-2), { name: 'web_search', arguments: { query: 'from a script', limit: 1 } });
});
