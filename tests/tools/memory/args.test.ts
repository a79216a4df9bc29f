import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, viaBridge } from '../../helpers/gateway.js';
import { startMemoryGateway, USER_PEER, type MemoryGateway } from '../../helpers/memory.js';

// Numbers sent as strings reach the memory tools as numbers, over MCP (Hermes' dispatch coercion,
// supervisor/core/hermes-args.ts; Hermes' honcho tools read theirs with int()): the Honcho stand-in
// sees the integer, and what Hermes would not read as a number stays INVALID_ARGUMENTS.

let m: MemoryGateway;
before(async () => {
  m = await startMemoryGateway();
});
after(async () => {
  assert.deepEqual(m.standin.violations, [], 'the stand-in saw only documented answers');
  await m.close();
});

test('memory_search takes "limit": "3" as 3; "2.5" is INVALID_ARGUMENTS and reaches nothing', async () => {
  const client = await connect(m.gw.mcpUrl, 'modern');
  try {
    const { data, isError } = await viaBridge(client, 'memory_search', { query: 'Friday deploys', limit: '3' });
    assert.equal(isError, false, JSON.stringify(data));
    const query = m.callsTo('POST', '/v3/workspaces/hermes/conclusions/query').at(-1)!;
    assert.deepEqual(query.body, { query: 'Friday deploys', top_k: 3, filters: { observer_id: 'chatgpt', observed_id: USER_PEER } });
    const before = m.standin.calls.length;
    const bad = await viaBridge(client, 'memory_search', { query: 'Friday deploys', limit: '2.5' });
    assert.equal(bad.isError, true);
    assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
    assert.equal(m.standin.calls.length, before, 'a refused call sends nothing to Honcho');
  } finally {
    await client.close();
  }
});
