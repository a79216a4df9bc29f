import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { descendantsOf } from '../../../shared/proc.js';
import { connect, startTestGateway, viaBridge } from '../../helpers/gateway.js';

// Closing the gateway leaves no worker behind: not the prepared execute_code units, not one being
// prepared while calls come and go (a second spare prepared concurrently once leaked a worker).

function workersOfThisProcess(): number[] {
  return descendantsOf(process.pid).filter((pid) => {
    try {
      // Node workers (dist/workers/*.js) and execute_code units (workers/execute/unit.py).
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('/workers/');
    } catch {
      return false;
    }
  });
}

test('no worker outlives the gateway, whatever the pre-spawn timing', async () => {
  const gw = await startTestGateway();
  const client = await connect(gw.mcpUrl, 'legacy');
  // Calls right after start-up race the initial pre-spawn; short gaps race the next ones.
  for (let i = 0; i < 6; i++) {
    const r = await viaBridge(client, 'execute_code', { code: 'print(1)' });
    assert.equal(r.data.status, 'success', JSON.stringify(r.data));
    await new Promise((resolve) => setTimeout(resolve, i * 15));
  }
  // Calls finishing together each ask for the next spare at the same moment.
  const together = await Promise.all([0, 1].map(() => viaBridge(client, 'execute_code', { code: 'import time\ntime.sleep(0.3)' })));
  assert.deepEqual(together.map((r) => r.data.status), ['success', 'success'], JSON.stringify(together.map((r) => r.data)));
  await new Promise((resolve) => setTimeout(resolve, 300));
  await viaBridge(client, 'terminal', { command: 'true' });
  await client.close();
  await gw.close();
  const end = Date.now() + 3000;
  while (workersOfThisProcess().length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  assert.deepEqual(workersOfThisProcess(), []);
});
