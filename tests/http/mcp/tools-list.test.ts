import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, ERAS, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const SIX = ['tool_search', 'tool_describe', 'tool_call', 'startup_context', 'memory_context', 'skills_list'];
const FORBIDDEN = ['browser_exec', 'browser_cdp', 'computer_use', 'memory', 'todo', 'text_to_speech', 'kanban_list'];

describe('tools/list', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => gw.close());

  for (const era of ERAS) {
    test(`${era} era: exactly the six public tools, in a fixed order`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name), SIX);
        const again = await client.listTools();
        assert.deepEqual(again.tools, tools, 'the list is deterministic');
      } finally {
        await client.close();
      }
    });

    test(`${era} era: every public tool carries explicit boolean hints`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const { tools } = await client.listTools();
        for (const t of tools) {
          for (const hint of ['readOnlyHint', 'destructiveHint', 'openWorldHint'] as const) {
            assert.equal(typeof t.annotations?.[hint], 'boolean', `${t.name}.${hint}`);
          }
          assert.equal(t.inputSchema.type, 'object');
        }
        const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
        assert.equal(byName.tool_call!.annotations!.readOnlyHint, false, 'tool_call reaches write tools');
        assert.equal(byName.startup_context!.annotations!.readOnlyHint, true);
      } finally {
        await client.close();
      }
    });
  }

  test('forbidden tools are in neither the list nor the catalog', async () => {
    for (const name of FORBIDDEN) assert.equal(gw.gateway.catalog.has(name), false, name);
  });
});
