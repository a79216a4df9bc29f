import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuPoolCompleted } from '../../../supervisor/platform/thread-pool/pool.js';
import { connect, startTestGateway, viaBridge } from '../../helpers/gateway.js';

// The supervisor has one piscina pool: session_search's reads run on the same threads as the
// normalisation of big results, and the gateway's close() stops that one pool.

test('session_search runs on the one CPU pool, which the gateway closes', async () => {
  const gw = await startTestGateway();
  try {
    const client = await connect(gw.mcpUrl, 'modern');
    const before = cpuPoolCompleted();
    // No state.db in the test home: the task still runs (and answers STATE_DB_MISSING) on a pool thread.
    const r = await viaBridge(client, 'session_search', { query: 'anything' });
    assert.equal(r.data.error, 'STATE_DB_MISSING', JSON.stringify(r.data));
    assert.equal(cpuPoolCompleted(), before + 1, 'the search ran on the shared pool');
    await client.close();
  } finally {
    await gw.close();
  }
  assert.equal(cpuPoolCompleted(), 0, 'closing the gateway closed the pool');
});
