import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { imageParts, messageText, type ModelRequest } from '../../fixtures/scripted-model.js';
import { viaBridge } from '../../helpers/gateway.js';
import { gte } from '@renovatebot/pep440';
import { pngImage, pngSize } from '../../helpers/hermes-tools.js';
import { hermes } from '../../helpers/hermes.js';
import { realMediaSuite } from '../../helpers/real-hermes-tools.js';

// vision_analyze and image_generate on Hermes' real tool server, through Hermes' own clients at
// local stand-ins: its auxiliary vision client at a scripted OpenAI-compatible model
// (auxiliary.vision.base_url), its OpenAI image backend at an Images API stand-in
// (image_gen.provider: openai; OPENAI_BASE_URL and OPENAI_API_KEY in $HERMES_HOME/.env, which the
// gateway's environment carries to the tool server). A failing model is Hermes' own failure shape.
// The user's config.yaml asks for native image input (agent.image_input_mode: native), under which
// Hermes' vision_analyze answers a multimodal dict for a model's next turn that its MCP wrapper
// cannot carry (an error result on both versions); the gateway's managed scope for the tool server
// sets text mode, so vision_analyze answers the analysis all the same. On the newest Hermes,
// vision_analyze also takes a `region` to crop to, and image_generate is listed although Hermes'
// tool search defers it by default (the managed scope turns tool search off).

const IMAGE = pngImage(3, 2);
const s = realMediaSuite('hmcp-real-media-', IMAGE, { fallback: { text: 'A tiny three-by-two test picture.' } }, (media) => ({ ...media.options, config: { ...media.options.config, agent: { image_input_mode: 'native' } } }));

test("vision_analyze: Hermes' auxiliary vision client asks the scripted model with the image, and its answer is the analysis", async () => {
  const path = join(s.real.home, 'picture.png');
  writeFileSync(path, IMAGE);
  const r = await viaBridge(s.client, 'vision_analyze', { image_url: path, question: 'What is in it?' });
  assert.equal(r.data.success, true, JSON.stringify(r.data));
  assert.equal(r.data.analysis, 'A tiny three-by-two test picture.');
  const asked = s.media.model.chatRequests().at(-1)!;
  assert.equal(asked.body?.model, 'scripted-vision');
  assert.equal(asked.headers.authorization, 'Bearer sk-scripted-vision');
  assert.deepEqual(imageParts(asked), [`data:image/png;base64,${IMAGE.toString('base64')}`], 'the image went to the model');
  assert.match((asked.body?.messages as Array<{ content: unknown }>).map((m) => messageText(m.content)).join('\n'), /What is in it\?/);
});

test("vision_analyze with the model failing: Hermes' failure inside a normal result", async () => {
  // As many failures as Hermes retries (0.19.0 more than 0.22.2), only for this question: any left over never meets another test's.
  const again = (r: ModelRequest) => ((r.body?.messages ?? []) as Array<{ content: unknown }>).some((m) => messageText(m.content).includes('Again?'));
  s.media.model.push({ status: 500, error: { error: { message: 'scripted outage', type: 'server_error' } }, when: again }, { status: 500, when: again }, { status: 500, when: again }, { status: 500, when: again });
  const path = join(s.real.home, 'picture.png');
  const r = await viaBridge(s.client, 'vision_analyze', { image_url: path, question: 'Again?' });
  assert.equal(r.isError, false);
  assert.equal(r.data.success, false, JSON.stringify(r.data));
  assert.equal(typeof r.data.error, 'string');
});

test("vision_analyze with a region, where the tool server lists one: the model is sent Hermes' crop", async () => {
  const listed = s.real.gw.gateway.catalog.get('vision_analyze')!.tool.inputSchema.properties as Record<string, unknown>;
  assert.equal('region' in listed, gte(hermes().version, '0.22.2'), 'the newest lists region, 0.19.0 does not');
  if (!('region' in listed)) return;
  const path = join(s.real.home, 'wide.png');
  writeFileSync(path, pngImage(40, 20));
  const r = await viaBridge(s.client, 'vision_analyze', { image_url: path, question: 'What is in the corner?', region: [10, 5, 30, 15] });
  assert.equal(r.data.success, true, JSON.stringify(r.data));
  // Hermes' own note on the crop (tools/vision_tools.py _build_scale_note), then the model's analysis.
  assert.equal(r.data.analysis, '[Analysis was performed on a cropped region of the original image starting at offset (10, 5); coordinates are relative to that crop origin — add the offset to map back to the full image.] A tiny three-by-two test picture.');
  const sent = imageParts(s.media.model.chatRequests().at(-1)!);
  assert.equal(sent.length, 1);
  assert.ok(sent[0]!.startsWith('data:image/png;base64,'), sent[0]!.slice(0, 40));
  assert.deepEqual(pngSize(Buffer.from(sent[0]!.slice('data:image/png;base64,'.length), 'base64')), { width: 20, height: 10 }, 'the 20x10 crop, not the 40x20 image');
});

test("image_generate (listed although Hermes' tool search defers it by default): Hermes' OpenAI backend asks the Images API stand-in and saves the image under $HERMES_HOME", async () => {
  const r = await viaBridge(s.client, 'image_generate', { prompt: 'a small square', aspect_ratio: 'square' });
  assert.equal(r.data.success, true, JSON.stringify(r.data));
  const saved = String(r.data.image);
  // Hermes 0.22 keeps generated images under cache/generated/images (agent/image_gen_provider.py), 0.19.0 under cache/images.
  assert.ok(saved.startsWith(join(s.real.home, 'cache', ...(gte(hermes().version, '0.22.2') ? ['generated', 'images'] : ['images']))), saved);
  assert.deepEqual(readFileSync(saved), IMAGE);
  const request = s.media.images.requests.at(-1)!;
  assert.equal(request.path, '/v1/images/generations');
  assert.equal(request.authorization, 'Bearer sk-images-standin');
  assert.equal(request.body?.prompt, 'a small square');
  assert.deepEqual(s.real.egress, []);
});
