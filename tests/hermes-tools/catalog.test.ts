import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { call, connect, makeHermesHome, optionalComponents, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';
import { fakeHermesInstall, toolServerReadiness, toolServerStandIn, type ToolServerStandIn } from '../helpers/hermes-tools.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// Hermes' tool server found where a standard install puts it ($HERMES_HOME/hermes-agent, its venv
// python; no HERMES_MCP_HERMES_TOOLS_COMMAND): the catalog takes exactly the allowlisted tools it
// offers, with its schemas, and reports the one it does not offer as missing.

const temp = tempDirs();
let gw: TestGateway;
let client: Client;
let standIn: ToolServerStandIn;
let home: string;

before(async () => {
  home = makeHermesHome();
  standIn = toolServerStandIn(temp.make('hmcp-tools-')); // as Hermes' tool server: no video_analyze
  fakeHermesInstall(home, standIn);
  gw = await startTestGateway({ home, env: { HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('hermes_tools', 'web_provider') } });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  temp.removeAll();
});

test('the tool server is started as a standard install would run it, with redaction on and quiet output', () => {
  const [start] = standIn.starts();
  assert.ok(start, 'the stand-in was started');
  assert.equal(start.cwd, join(home, 'hermes-agent'));
  assert.deepEqual(start.argv.slice(-2), ['-m', 'agent.transports.hermes_tools_mcp_server']);
  assert.deepEqual(start.env, { HERMES_HOME: home, HERMES_REDACT_SECRETS: 'true', HERMES_QUIET: '1' });
});

test('the catalog has exactly the allowlisted tools the tool server offers, with its schemas', async () => {
  const names = gw.gateway.catalog.names();
  const fromHermes = gw.gateway.catalog.all().filter((e) => e.source === 'hermes').map((e) => e.tool.name);
  // The stand-in's allowlisted tools, beside the gateway's own skills tools under the same source.
  assert.deepEqual(fromHermes, ['image_generate', 'skill_view', 'skills_list', 'vision_analyze', 'web_extract', 'web_search']);
  for (const name of ['video_analyze', 'text_to_speech', 'kanban_list']) assert.equal(names.includes(name), false, name);
  // skills_list and browser_navigate are the gateway's own, not the tool server's copies
  assert.doesNotMatch(gw.gateway.catalog.get('skills_list')!.tool.description, /^List available skills\.$/);
  // As a client discovers it: the tool server's own description and schema, from the hermes source.
  const { data } = await call(client, 'tool_describe', { names: ['web_extract', 'video_analyze'] });
  const web = (data.tools as Record<string, { description: string; parameters: unknown; source: string }>).web_extract!;
  assert.equal(web.source, 'hermes');
  assert.equal(web.description, 'Extract content from web page URLs. Returns page content in markdown format. Also works with PDF URLs. If a URL fails or times out, use the browser tool to access it instead.');
  assert.deepEqual(web.parameters, {
    type: 'object',
    properties: { urls: { type: 'array', items: { type: 'string' }, description: 'List of URLs to extract content from (max 5 URLs per call)', maxItems: 5 }, char_limit: { type: 'integer', minimum: 2000, description: 'Per-page character budget' } },
    required: ['urls'],
  });
  assert.deepEqual(data.not_found, ['video_analyze']);
  assert.deepEqual(gw.gateway.catalog.get('image_generate')!.tool.inputSchema.required, ['prompt']);
});

test('/readyz: the tool server is up and its missing tool is named; the web provider is ready once both smoke calls worked', async () => {
  const r = await waitFor(async () => {
    const now = await toolServerReadiness(gw.url);
    return now.web.status !== 'starting' ? now : undefined;
  }, 20_000, 'the web smoke calls');
  assert.equal(r.hermesTools.ready, true);
  assert.equal(r.hermesTools.status, 'degraded');
  assert.deepEqual(r.hermesTools.details?.missing, ['video_analyze']);
  assert.match(r.hermesTools.reason ?? '', /video_analyze/);
  assert.deepEqual(r.web, { ready: true, status: 'ok', details: { web_search: 'ok', web_extract: 'ok' }, required: true });
  assert.equal(r.code, 200);
  const smoke = standIn.calls().map((c) => c.name);
  assert.deepEqual(smoke, ['web_search', 'web_extract'], 'one real call each');
});

test('a tool the tool server does not offer is not callable', async () => {
  const r = await viaBridge(client, 'video_analyze', { video_url: '/tmp/x.mp4', question: 'what?' });
  assert.equal(r.isError, true);
  assert.equal(r.data.error, 'UNKNOWN_TOOL');
});
