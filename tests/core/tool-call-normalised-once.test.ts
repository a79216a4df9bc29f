import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ToolDefinition } from '../../supervisor/core/tool-types.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';

// tool_call's answer is its target's result, normalised once under the target's own options: the
// structuredContent is kept and mirrored by exactly one JSON text block, secrets are redacted, and
// an image a vision-style tool returns survives (tool_call itself returns no images, so a second
// normalisation under tool_call's options would replace it by a marker, and one of the normalised
// result would lose structuredContent and mirror the mirror).

const SECRET = 'sk-proj-' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4';
const IMAGE = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };

const looker: ToolDefinition = {
  name: 'fixture_look',
  description: 'Fixture: a vision-style tool returning an image, a text and a structured value.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  returnsImages: true,
  async handler() {
    return { structured: { seen: `a cat; key ${SECRET}` }, content: [IMAGE, { type: 'text', text: `caption, key ${SECRET}` }] };
  },
};

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ adapters: [{ name: 'fixture', source: { name: 'embedded', tools: () => [looker] } }] });
});
after(async () => gw.close());

test("tool_call returns its target's result normalised exactly once, under the target's options", async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const { result, data, isError } = await viaBridge(client, 'fixture_look');
    assert.equal(isError, false);
    assert.ok(!JSON.stringify(result).includes(SECRET), 'redacted');
    assert.equal(result.content.length, 3, JSON.stringify(result.content));
    const [mirror, image, caption] = result.content;
    assert.deepEqual(JSON.parse(mirror!.text!), data, 'one JSON mirror of structuredContent');
    assert.deepEqual(image, IMAGE, "the target's image survives");
    assert.equal(caption!.type, 'text');
    assert.match(caption!.text!, /^caption, key \S+$/);
    assert.match(String(data.seen), /^a cat; key \S+$/);
  } finally {
    await client.close();
  }
});
