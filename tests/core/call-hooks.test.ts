import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ToolDefinition } from '../../supervisor/core/tool-types.js';
import { call, connect, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';

// Adapter.callHook: an adapter hears of every catalogued tool's call just before its handler runs,
// a nested one (execute_code's hermes_tools) too, with the call's owner; the gateway's own discovery
// tools are not a task's calls and are not told. The file tools' repeated-read counters reset on it.

const heard: Array<{ tool: string; owner: string; kind: string }> = [];

const tool = (name: string, run: ToolDefinition['handler']): ToolDefinition => ({
  name,
  description: `Fixture: ${name}.`,
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  handler: run,
});

const inner = tool('fixture_inner', async () => ({ structured: { heardBefore: heard.length } }));
const outer = tool('fixture_outer', async (_args, ctx) => {
  const nested = await ctx.callNested('fixture_inner', {});
  return { structured: { nested: nested.structured ?? null } };
});

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({
    adapters: [{ name: 'fixture', source: { name: 'embedded', tools: () => [inner, outer] }, callHook: (name, ctx) => void heard.push({ tool: name, owner: ctx.owner.id, kind: ctx.owner.kind }) }],
  });
});
after(async () => gw.close());

test('every catalogued call is heard before it runs, nested ones too; discovery tools are not', async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    await call(client, 'tool_search', { query: 'fixture' });
    assert.equal(heard.length, 0, 'tool_search is the gateway’s own');
    const direct = await viaBridge(client, 'fixture_inner');
    assert.equal(direct.data.heardBefore, 1, 'heard before its handler ran');
    assert.equal(heard[0]!.tool, 'fixture_inner');
    assert.equal(heard[0]!.kind, 'request');

    const token = (await viaBridge(client, 'session_open')).data.session_token as string;
    heard.length = 0;
    await viaBridge(client, 'fixture_outer', {}, token);
    assert.deepEqual(
      heard.map((h) => h.tool),
      ['fixture_outer', 'fixture_inner'],
    );
    assert.equal(heard[0]!.kind, 'capability');
    assert.equal(heard[1]!.owner, heard[0]!.owner, 'the nested call is heard for its parent’s owner');
  } finally {
    await client.close();
  }
});
