import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// execute_code over MCP reads `reset` sent as a string as Hermes' dispatch does
// (supervisor/core/hermes-args.ts): "true" is a boolean and the script runs; "yes", which Hermes'
// dispatch leaves a string, is INVALID_ARGUMENTS and nothing runs.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw.close();
});

test('execute_code with "reset": "true" runs the script; "reset": "yes" is INVALID_ARGUMENTS', async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const r = await viaBridge(client, 'execute_code', { code: 'print(6 * 7)', reset: 'true' });
    assert.equal(r.isError, false, JSON.stringify(r.data));
    assert.equal(r.data.status, 'success');
    assert.equal(r.data.output, '42\n');
    const bad = await viaBridge(client, 'execute_code', { code: 'print(1)', reset: 'yes' });
    assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
    assert.match(String(bad.data.message), /reset/);
  } finally {
    await client.close();
  }
});
