import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { toolServerReadiness, toolServerStandIn, type ToolServerStandIn } from '../../helpers/hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';

// A Hermes whose tool server offers video_analyze: the gateway catalogues and serves it like the
// others, and /readyz no longer names it missing. Stand-in: Hermes 0.19.0's tool server has no
// video_analyze (real-catalog.test.ts records that), so only a stand-in can offer it.

const temp = tempDirs();
let gw: TestGateway;
let client: Client;
let standIn: ToolServerStandIn;

before(async () => {
  standIn = toolServerStandIn(temp.make('hmcp-tools-'), '--with', 'video_analyze');
  gw = await startTestGateway({ env: { HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command } });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  temp.removeAll();
});

test('video_analyze is catalogued and answers as the tool server does', async () => {
  assert.equal(gw.gateway.catalog.get('video_analyze')?.source, 'hermes');
  const video = await viaBridge(client, 'video_analyze', { video_url: '/tmp/clip.mp4', question: 'Who?' });
  assert.deepEqual(video.data, { success: true, analysis: 'A video at /tmp/clip.mp4; asked: Who?' });
  assert.deepEqual(standIn.calls().at(-1), { name: 'video_analyze', arguments: { video_url: '/tmp/clip.mp4', question: 'Who?' } });
  const r = await toolServerReadiness(gw.url);
  assert.equal(r.hermesTools.status, 'ok');
  assert.deepEqual(r.hermesTools.details?.missing, []);
});
