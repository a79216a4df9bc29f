import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fixtureSource } from '../../helpers/fixtures.js';
import { call, connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// A token opened inside one MCP session is refused on another (SESSION_TOKEN_FOREIGN). A client
// that reconnects per call hits this every time, so the refusal must say what to do next, and
// session_open must warn that reconnecting per call loses cwd and exports.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ adapters: [{ name: 'fixture', source: fixtureSource().source }] });
});
after(async () => gw.close());

test('SESSION_TOKEN_FOREIGN says to use the opening MCP session or a sessionless 2026-07-28 client', async () => {
  const first = await connect(gw.mcpUrl, 'legacy');
  const second = await connect(gw.mcpUrl, 'legacy');
  try {
    const token = (await viaBridge(first, 'session_open')).data.session_token as string;
    const foreign = await viaBridge(second, 'fixture_bound', {}, token);
    assert.equal(foreign.data.error, 'SESSION_TOKEN_FOREIGN');
    const message = String(foreign.data.message);
    assert.match(message, /on the MCP session that opened it/, message);
    assert.match(message, /sessionless 2026-07-28 client/, message);
    assert.match(message, /session_open on this session/, message);
    // The advice holds: the opening session still accepts it, a sessionless client's token works anywhere.
    assert.equal((await viaBridge(first, 'fixture_bound', {}, token)).data.kind, 'capability');
    const modern = await connect(gw.mcpUrl, 'modern');
    const portable = (await viaBridge(modern, 'session_open')).data.session_token as string;
    assert.equal((await viaBridge(second, 'fixture_bound', {}, portable)).data.kind, 'capability');
    await modern.close();
  } finally {
    await first.close();
    await second.close();
  }
});

test('session_open warns that a client reconnecting per call is a fresh owner each time and loses cwd and exports', async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const { data } = await call(client, 'tool_describe', { names: ['session_open'] });
    const description = (data.tools as Record<string, { description: string }>).session_open!.description;
    assert.match(description, /reconnects for every call/, description);
    assert.match(description, /fresh owner/);
    assert.match(description, /cwd and exported variables are lost/);
  } finally {
    await client.close();
  }
});
