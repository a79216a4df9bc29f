import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { formatDuration } from '../../../supervisor/platform/duration.js';
import { testClock } from '../../helpers/clock.js';
import { fixtureSource } from '../../helpers/fixtures.js';
import { call, connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// The token lifetime is a configured limit (HERMES_MCP_SESSION_TOKEN_TTL_SECONDS): session_open's
// description and the expiry error must quote the configured value, not the 15-minute default.

let gw: TestGateway;
const clock = testClock();
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_SESSION_TOKEN_TTL_SECONDS: '5' }, now: clock.now, adapters: [{ name: 'fixture', source: fixtureSource().source }] });
});
after(async () => gw.close());

test('with a 5-second token lifetime, session_open says "5 seconds" and the expiry error says so too', async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const { data } = await call(client, 'tool_describe', { names: ['session_open'] });
    const description = (data.tools as Record<string, { description: string }>).session_open!.description;
    assert.match(description, /valid 5 seconds\b/, description);
    assert.doesNotMatch(description, /minutes?, fixed/);
    const opened = await viaBridge(client, 'session_open');
    assert.equal(opened.data.expires_in_seconds, 5);
    clock.advance(6_000);
    const expired = await viaBridge(client, 'fixture_whoami', {}, opened.data.session_token as string);
    assert.equal(expired.data.error, 'SESSION_TOKEN_EXPIRED');
    assert.match(String(expired.data.message), /tokens live 5 seconds from session_open/);
    assert.doesNotMatch(String(expired.data.message), /15 minutes/);
  } finally {
    await client.close();
  }
});

test('durations read sensibly', () => {
  assert.equal(formatDuration(5), '5 seconds');
  assert.equal(formatDuration(1), '1 second');
  assert.equal(formatDuration(900), '15 minutes');
  assert.equal(formatDuration(60), '1 minute');
  assert.equal(formatDuration(90), '1 minute 30 seconds');
  assert.equal(formatDuration(3600), '1 hour');
  assert.equal(formatDuration(5400), '1 hour 30 minutes');
});
