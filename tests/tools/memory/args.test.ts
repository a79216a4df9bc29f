import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viaBridge } from '../../helpers/gateway.js';
import { USER_PEER } from '../../helpers/memory.js';
import { memorySuite } from './fixture.js';

// Numbers sent as strings reach the memory tools as numbers, over MCP (Hermes' dispatch coercion,
// supervisor/core/hermes-args.ts; Hermes' honcho tools read theirs with int()): the Honcho stand-in
// sees the integer, and what Hermes would not read as a number stays INVALID_ARGUMENTS.

const suite = memorySuite();

test('memory_search takes "limit": "3" as 3; "2.5" is INVALID_ARGUMENTS and reaches nothing', async () => {
  await suite.withClient('modern', async (client) => {
    const { data, isError } = await viaBridge(client, 'memory_search', { query: 'Friday deploys', limit: '3' });
    assert.equal(isError, false, JSON.stringify(data));
    const query = suite.callsTo('POST', '/v3/workspaces/hermes/conclusions/query').at(-1)!;
    assert.deepEqual(query.body, { query: 'Friday deploys', top_k: 3, filters: { observer_id: 'chatgpt', observed_id: USER_PEER } });
    const before = suite.standin.calls.length;
    const bad = await viaBridge(client, 'memory_search', { query: 'Friday deploys', limit: '2.5' });
    assert.equal(bad.isError, true);
    assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
    assert.equal(suite.standin.calls.length, before, 'a refused call sends nothing to Honcho');
  });
});
