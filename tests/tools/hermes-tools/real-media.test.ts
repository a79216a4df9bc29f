import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { imageParts, messageText } from '../../fixtures/scripted-model.js';
import { connect, viaBridge } from '../../helpers/gateway.js';
import { pngHeader } from '../../helpers/hermes-tools.js';
import { startMediaProviders, startRealTools, type MediaProviders, type RealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';

// vision_analyze and image_generate on Hermes' real tool server, through Hermes' own clients at
// local stand-ins: its auxiliary vision client at a scripted OpenAI-compatible model
// (auxiliary.vision.base_url), its OpenAI image backend at an Images API stand-in
// (image_gen.provider: openai; OPENAI_BASE_URL and OPENAI_API_KEY in $HERMES_HOME/.env, which the
// gateway's environment carries to the tool server). A failing model is Hermes' own failure shape.

const temp = tempDirs();
const IMAGE = pngHeader(3, 2);
let real: RealTools;
let media: MediaProviders;
let client: Client;

before(async () => {
  media = await startMediaProviders(IMAGE, { fallback: { text: 'A tiny three-by-two test picture.' } });
  real = await startRealTools(temp.make('hmcp-real-media-'), media.options);
  client = await connect(real.gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await real?.close();
  await media?.close();
  temp.removeAll();
});

test("vision_analyze: Hermes' auxiliary vision client asks the scripted model with the image, and its answer is the analysis", async () => {
  const path = join(real.home, 'picture.png');
  writeFileSync(path, IMAGE);
  const r = await viaBridge(client, 'vision_analyze', { image_url: path, question: 'What is in it?' });
  assert.equal(r.data.success, true, JSON.stringify(r.data));
  assert.equal(r.data.analysis, 'A tiny three-by-two test picture.');
  const asked = media.model.chatRequests().at(-1)!;
  assert.equal(asked.body?.model, 'scripted-vision');
  assert.equal(asked.headers.authorization, 'Bearer sk-scripted-vision');
  assert.ok(imageParts(asked).some((u) => u.startsWith('data:image/png;base64,')), 'the image went to the model');
  assert.match((asked.body?.messages as Array<{ content: unknown }>).map((m) => messageText(m.content)).join('\n'), /What is in it\?/);
});

test("vision_analyze with the model failing: Hermes' failure inside a normal result", async () => {
  media.model.push({ status: 500, error: { error: { message: 'scripted outage', type: 'server_error' } } }, { status: 500 }, { status: 500 }, { status: 500 });
  const path = join(real.home, 'picture.png');
  const r = await viaBridge(client, 'vision_analyze', { image_url: path, question: 'Again?' });
  assert.equal(r.isError, false);
  assert.equal(r.data.success, false, JSON.stringify(r.data));
  assert.equal(typeof r.data.error, 'string');
});

test("image_generate: Hermes' OpenAI backend asks the Images API stand-in and saves the image under $HERMES_HOME", async () => {
  const r = await viaBridge(client, 'image_generate', { prompt: 'a small square', aspect_ratio: 'square' });
  assert.equal(r.data.success, true, JSON.stringify(r.data));
  const saved = String(r.data.image);
  assert.ok(saved.startsWith(join(real.home, 'cache', 'images')), saved);
  assert.deepEqual(readFileSync(saved), IMAGE);
  const request = media.images.requests.at(-1)!;
  assert.equal(request.path, '/v1/images/generations');
  assert.equal(request.authorization, 'Bearer sk-images-standin');
  assert.equal(request.body?.prompt, 'a small square');
  assert.deepEqual(real.egress, []);
});
