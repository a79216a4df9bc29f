import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectWithToken, createStaticToken } from '../../helpers/auth.js';
import { connect, sessionToken, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// A capability session_token belongs to the credential that opened it: another credential holding
// the token (leaked into a transcript, shared by mistake) is told it is foreign, and its owner's cwd,
// processes and browser stay out of reach. Without authentication nothing changes.

let gw: TestGateway;
let open: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_AUTH: 'on' } });
  open = await startTestGateway();
});
after(async () => {
  await gw.close();
  await open.close();
});

test('a session_token opened with one static token is SESSION_TOKEN_FOREIGN for another', async () => {
  const alice = await connectWithToken(gw.mcpUrl, 'modern', createStaticToken(gw.home, 'alice'));
  const bob = await connectWithToken(gw.mcpUrl, 'modern', createStaticToken(gw.home, 'bob'));
  const token = await sessionToken(alice);
  assert.match(token, /^hmcp_/);
  const own = await viaBridge(alice, 'process_manage', { action: 'list' }, token);
  assert.equal(own.isError, false, JSON.stringify(own.data));
  const foreign = await viaBridge(bob, 'process_manage', { action: 'list' }, token);
  assert.equal(foreign.data.error, 'SESSION_TOKEN_FOREIGN');
  assert.equal((await viaBridge(bob, 'session_close', {}, token)).data.error, 'SESSION_TOKEN_FOREIGN');
  assert.equal((await viaBridge(alice, 'process_manage', { action: 'list' }, token)).isError, false, 'still alive for its owner');
  await alice.close();
  await bob.close();
});

test('without authentication a token works from any client, as before', async () => {
  const a = await connect(open.mcpUrl, 'modern');
  const b = await connect(open.mcpUrl, 'modern');
  const token = await sessionToken(a);
  assert.equal((await viaBridge(b, 'process_manage', { action: 'list' }, token)).isError, false);
  await a.close();
  await b.close();
});
