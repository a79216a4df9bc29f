import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { loadToolPolicy } from '../../../supervisor/core/catalog/policy.js';
import { TOOL_SERVER_TOOLS } from '../../../supervisor/tools/hermes-tools/index.js';
import { call, connect } from '../../helpers/gateway.js';
import { pngHeader, toolServerReadiness } from '../../helpers/hermes-tools.js';
import { hermes } from '../../helpers/hermes.js';
import { startMediaProviders, startRealTools, type MediaProviders, type RealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// The catalog against Hermes' real tool server, with every backend this Hermes version can have
// here: web (Firecrawl stand-in), vision (its auxiliary client at a scripted OpenAI-compatible
// model), image generation (its OpenAI backend at an Images API stand-in). The frozen catalog is
// exactly (what the tool server lists ∩ the allowlist), each with the listed description and
// input schema unchanged — FastMCP's schemas, generated from the Hermes tool's signature, not
// Hermes' own JSON schemas. Hermes 0.19.0 has no video_analyze: /readyz names it missing.

const temp = tempDirs();
let real: RealTools;
let media: MediaProviders;
let client: Client;

before(async () => {
  media = await startMediaProviders(pngHeader(8, 8));
  real = await startRealTools(temp.make('hmcp-real-catalog-'), media.options);
  client = await connect(real.gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await real?.close();
  await media?.close();
  temp.removeAll();
});

test("the catalog is the tool server's list ∩ the allowlist, with its descriptions and schemas exactly as listed", async () => {
  const listed = await real.listDirectly();
  const allow = loadToolPolicy().allow;
  const expected = listed.tools.filter((t) => (TOOL_SERVER_TOOLS as readonly string[]).includes(t.name) && allow.has(t.name));
  assert.deepEqual(expected.map((t) => t.name).sort(), ['image_generate', 'vision_analyze', 'web_extract', 'web_search'], 'this Hermes lists these four with their backends configured');
  assert.equal(listed.tools.some((t) => t.name === 'video_analyze'), false, 'Hermes 0.19.0 serves no video_analyze');
  const catalogued = real.gw.gateway.catalog.all().filter((e) => e.source === 'hermes' && (TOOL_SERVER_TOOLS as readonly string[]).includes(e.tool.name));
  assert.deepEqual(catalogued.map((e) => e.tool.name).sort(), expected.map((t) => t.name).sort());
  for (const tool of expected) {
    const entry = real.gw.gateway.catalog.get(tool.name)!;
    assert.equal(entry.tool.description, tool.description, tool.name);
    assert.deepEqual(entry.tool.inputSchema, tool.inputSchema, tool.name);
  }
  // As a client discovers it through tool_describe.
  const { data } = await call(client, 'tool_describe', { names: ['web_extract'] });
  assert.deepEqual((data.tools as Record<string, { parameters: unknown }>).web_extract!.parameters, expected.find((t) => t.name === 'web_extract')!.inputSchema);
  // Nothing else of the tool server's list is catalogued from it (its browser, skills, TTS, kanban tools).
  for (const name of ['text_to_speech', 'browser_vision', 'browser_navigate']) assert.notEqual(real.gw.gateway.catalog.get(name)?.source, 'hermes', name);
});

test("/readyz.hermes_tools: up, degraded by the missing video_analyze; serverInfo is the MCP package's, not Hermes'", async () => {
  const r = await waitFor(async () => {
    const now = await toolServerReadiness(real.gw.url);
    return now.hermesTools.details?.state === 'up' ? now : undefined;
  }, 30_000, 'the tool server up');
  assert.equal(r.hermesTools.ready, true);
  assert.equal(r.hermesTools.status, 'degraded');
  assert.deepEqual(r.hermesTools.details?.missing, ['video_analyze']);
  assert.match(r.hermesTools.reason ?? '', /does not offer video_analyze/);
  const { serverInfo } = await real.listDirectly();
  assert.equal(serverInfo?.name, 'hermes-tools');
  assert.notEqual(serverInfo?.version, hermes().version, `FastMCP reports its own package version (${serverInfo?.version}), not Hermes ${hermes().version}`);
  assert.deepEqual(real.egress, []);
});
