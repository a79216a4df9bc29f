import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, optionalComponents, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { toolServerReadiness } from '../../helpers/hermes-tools.js';

// No Hermes install under $HERMES_HOME (the default place): nothing is spawned to learn that,
// /readyz says what is missing and where it was looked for, the catalog has none of the tool
// server's tools (never a made-up schema), and browser_vision's description does not promise an analysis.

let gw: TestGateway;
let client: Client;

before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('hermes_tools', 'web_provider') } });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
});

test('/readyz names the missing tool server and what to do; nothing was spawned', async () => {
  const r = await toolServerReadiness(gw.url);
  assert.equal(r.code, 503);
  assert.equal(r.hermesTools.status, 'not_installed');
  const looked = [join(gw.home, 'hermes-agent', 'venv', 'bin', 'python'), join(gw.home, 'hermes-agent', '.venv', 'bin', 'python')].join(', ');
  assert.ok((r.hermesTools.reason ?? '').includes(`no Hermes interpreter was found (looked at ${looked})`), r.hermesTools.reason);
  assert.match(r.hermesTools.action ?? '', /HERMES_AGENT_PYTHON/);
  assert.equal(r.web.ready, false);
  assert.equal(gw.hermesTools.worker.pid, undefined);
});

test('the catalog has none of its tools, and descriptions promise nothing it would serve', async () => {
  const names = gw.gateway.catalog.names();
  for (const name of ['web_search', 'web_extract', 'vision_analyze', 'image_generate', 'video_analyze']) assert.equal(names.includes(name), false, name);
  assert.match(gw.gateway.catalog.get('browser_vision')!.tool.description, /answers VISION_UNAVAILABLE/);
  const r = await viaBridge(client, 'web_search', { query: 'x' });
  assert.equal(r.data.error, 'UNKNOWN_TOOL');
});
