import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadToolPolicy } from '../../../supervisor/core/catalog/policy.js';
import { TOOL_SERVER_TOOLS } from '../../../supervisor/tools/hermes-tools/index.js';
import { call } from '../../helpers/gateway.js';
import { pngImage, toolServerReadiness } from '../../helpers/hermes-tools.js';
import { gte } from '@renovatebot/pep440';
import { hermes } from '../../helpers/hermes.js';
import { hermesMcpVersion, mcpTwo, realMediaSuite } from '../../helpers/real-hermes-tools.js';
import { waitFor } from '../../helpers/wait.js';

// The catalog against Hermes' real tool server, with every backend this Hermes version can have
// here: web (Firecrawl stand-in), vision (its auxiliary client at a scripted OpenAI-compatible
// model), image generation (its OpenAI backend at an Images API stand-in). The frozen catalog is
// exactly (what the tool server lists ∩ the allowlist), each with the listed description and
// input schema unchanged — FastMCP's schemas, generated from the Hermes tool's signature, not
// Hermes' own JSON schemas. Neither Hermes 0.19.0 nor 0.22.2 offers video_analyze: /readyz names it
// missing. image_generate is listed on both: 0.22.2's tool search would defer it (and the
// tool server would drop it), but the gateway runs its tool server with tool search off.

const s = realMediaSuite('hmcp-real-catalog-', pngImage(8, 8), {}, (media) => media.options);

test("the catalog is the tool server's list ∩ the allowlist, with its descriptions and schemas exactly as listed", async () => {
  const listed = await s.real.listDirectly();
  const allow = loadToolPolicy().allow;
  const expected = listed.tools.filter((t) => (TOOL_SERVER_TOOLS as readonly string[]).includes(t.name) && allow.has(t.name));
  assert.deepEqual(expected.map((t) => t.name).sort(), ['image_generate', 'vision_analyze', 'web_extract', 'web_search'], 'this Hermes lists these four with their backends configured');
  assert.equal(listed.tools.some((t) => t.name === 'video_analyze'), false, `Hermes ${hermes().version} serves no video_analyze`);
  // vision_analyze's `region` (a crop, tools/vision_tools.py VISION_ANALYZE_SCHEMA) is new in the
  // newest; the catalog serves whatever the tool server lists.
  const vision = expected.find((t) => t.name === 'vision_analyze')!.inputSchema.properties as Record<string, unknown>;
  assert.equal('region' in vision, gte(hermes().version, '0.22.2'), JSON.stringify(vision));
  const catalogued = s.real.gw.gateway.catalog.all().filter((e) => e.source === 'hermes' && (TOOL_SERVER_TOOLS as readonly string[]).includes(e.tool.name));
  assert.deepEqual(catalogued.map((e) => e.tool.name).sort(), expected.map((t) => t.name).sort());
  for (const tool of expected) {
    const entry = s.real.gw.gateway.catalog.get(tool.name)!;
    assert.equal(entry.tool.description, tool.description, tool.name);
    assert.deepEqual(entry.tool.inputSchema, tool.inputSchema, tool.name);
  }
  // As a client discovers it through tool_describe.
  const { data } = await call(s.client, 'tool_describe', { names: ['web_extract'] });
  assert.deepEqual((data.tools as Record<string, { parameters: unknown }>).web_extract!.parameters, expected.find((t) => t.name === 'web_extract')!.inputSchema);
  // Nothing else of the tool server's list is catalogued from it (its browser, skills, TTS, kanban tools).
  for (const name of ['text_to_speech', 'browser_vision', 'browser_navigate']) assert.notEqual(s.real.gw.gateway.catalog.get(name)?.source, 'hermes', name);
});

test("/readyz.hermes_tools: up, degraded by the missing video_analyze; serverInfo is the MCP package's, never Hermes' version", async () => {
  const r = await waitFor(async () => {
    const now = await toolServerReadiness(s.real.gw.url);
    return now.hermesTools.details?.state === 'up' ? now : undefined;
  }, 30_000, 'the tool server up');
  assert.equal(r.hermesTools.ready, true);
  assert.equal(r.hermesTools.status, 'degraded');
  assert.deepEqual(r.hermesTools.details?.missing, ['video_analyze']);
  assert.match(r.hermesTools.reason ?? '', /does not offer video_analyze/);
  const { serverInfo } = await s.real.listDirectly();
  assert.equal(serverInfo?.name, 'hermes-tools');
  // mcp 1.x FastMCP reports its own package's version there; mcp 2.x MCPServer reports none.
  assert.equal(serverInfo?.version, mcpTwo() ? '' : hermesMcpVersion(), `not Hermes ${hermes().version}`);
  assert.deepEqual(s.real.egress, []);
});
