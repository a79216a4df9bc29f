import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// delegate_task, over MCP, reads a call's strings as Hermes' dispatch does
// (supervisor/core/hermes-args.ts): `background: "true"` and `tasks` sent as JSON text reach the
// refusal Hermes-shaped calls get (DELEGATION_REQUIRES_JOB), not a schema error; what Hermes'
// dispatch leaves a string for a boolean stays INVALID_ARGUMENTS.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw.close();
});

test('delegate_task with "background": "true" and tasks as JSON text gets DELEGATION_REQUIRES_JOB; "background": "yes" is INVALID_ARGUMENTS', async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    for (const args of [{ goal: 'g', background: 'true' }, { tasks: '[{"goal":"a"},{"goal":"b","role":"leaf"}]', max_iterations: '5' }, { tasks: ['{"goal":"a","context":"c"}'] }]) {
      const { data, isError } = await viaBridge(client, 'delegate_task', args);
      assert.equal(isError, true);
      assert.equal(data.error, 'DELEGATION_REQUIRES_JOB', JSON.stringify(args));
    }
    const bad = await viaBridge(client, 'delegate_task', { goal: 'g', background: 'yes' });
    assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
    assert.match(String(bad.data.message), /background/);
  } finally {
    await client.close();
  }
});
