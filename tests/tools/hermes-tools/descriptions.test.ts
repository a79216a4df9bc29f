import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { call, connect, optionalComponents, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { startScriptedModel } from '../../fixtures/scripted-model.js';
import { pngHeader } from '../../helpers/hermes-tools.js';
import { startRealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';

// Descriptions name Hermes' web and vision tools only when this gateway serves them: tool_search's
// list of areas, read_file's note on images (and its FILE_BINARY answer), execute_code's
// hermes_tools imports. Without a tool server none of them mentions web or vision_analyze; with
// Hermes' real tool server serving them (its web backend and its auxiliary vision configured) they all do.

const temp = tempDirs();
const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.reverse()) await close();
  temp.removeAll();
});

async function descriptions(gw: TestGateway) {
  const client = await connect(gw.mcpUrl, 'modern');
  closers.push(() => client.close());
  const search = (await client.listTools()).tools.find((t) => t.name === 'tool_search')!.description ?? '';
  const described = (await call(client, 'tool_describe', { names: ['read_file', 'execute_code'] })).data.tools as Record<string, { description: string }>;
  writeFileSync(join(gw.home, 'picture.png'), pngHeader(2, 2));
  const binary = await viaBridge(client, 'read_file', { path: join(gw.home, 'picture.png') });
  assert.equal(binary.data.error, 'FILE_BINARY', JSON.stringify(binary.data));
  return { search, readFile: described.read_file!.description, executeCode: described.execute_code!.description, binary: String(binary.data.message) };
}

test('without a tool server no description mentions web or vision_analyze', async () => {
  const gw = await startTestGateway({ env: { HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('hermes_tools', 'web_provider') } });
  closers.push(() => gw.close());
  const d = await descriptions(gw);
  assert.doesNotMatch(d.search, /\bweb\b/);
  assert.doesNotMatch(d.readFile, /vision_analyze/);
  assert.doesNotMatch(d.binary, /vision_analyze/);
  assert.match(d.binary, /Use terminal to inspect binary files/);
  assert.doesNotMatch(d.executeCode, /web_search|web_extract/);
  assert.match(d.executeCode, /from hermes_tools import terminal, read_file, write_file, search_files, patch`/);
});

test("with Hermes' tool server serving them, the descriptions name them", async () => {
  const model = await startScriptedModel();
  closers.push(() => model.close());
  const real = await startRealTools(temp.make('hmcp-real-descriptions-'), { config: { auxiliary: { vision: { base_url: model.baseUrl, api_key: 'sk-scripted', model: 'scripted-model' } } } });
  closers.push(() => real.close());
  const d = await descriptions(real.gw);
  assert.match(d.search, /\bweb\b/);
  assert.match(d.readFile, /use vision_analyze for images/);
  assert.match(d.binary, /Use vision_analyze for images/);
  assert.match(d.executeCode, /from hermes_tools import terminal, read_file, write_file, search_files, patch, web_search, web_extract`/);
});
