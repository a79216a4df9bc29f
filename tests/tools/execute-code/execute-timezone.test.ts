import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';

// Hermes exports HERMES_TIMEZONE to its execute_code child as TZ. The zone is the gateway's
// configured one (loadConfig's HERMES_TIMEZONE), not whatever the supervisor process holds.

let gw: TestGateway;
const saved = process.env.HERMES_TIMEZONE;

before(async () => {
  delete process.env.HERMES_TIMEZONE;
  gw = await startTestGateway({ env: { HERMES_TIMEZONE: 'Asia/Tokyo' } });
});
after(async () => {
  if (saved !== undefined) process.env.HERMES_TIMEZONE = saved;
  await gw.close();
});

test("an execute_code script runs with TZ set to the configured HERMES_TIMEZONE", async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const r = await viaBridge(client, 'execute_code', { code: 'import os\nprint(os.environ.get("TZ"))' });
    assert.equal(r.data.status, 'success', String(r.data.output));
    assert.equal(String(r.data.output).trim(), 'Asia/Tokyo');
  } finally {
    await client.close();
  }
});
