import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { auditLines, authCli, connectWithToken, createStaticToken } from '../../helpers/auth.js';
import { call, ERAS, rawPost, sessionToken, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// Static bearer tokens on a loopback gateway with HERMES_MCP_AUTH=on (no public URL, no OAuth):
// created by the CLI and shown once, sent as a header by the SDK client in both eras, named in
// audit lines, never written anywhere; a read-only token is refused tools outside hermes:read
// before they run; rotation and revocation apply at once, without a restart.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_AUTH: 'on' } });
});
after(() => gw.close());

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });

test('without a token, or with a wrong one, /mcp answers 401 and runs nothing', async () => {
  assert.equal((await rawPost(gw.mcpUrl, INIT)).status, 401);
  const wrong = await rawPost(gw.mcpUrl, INIT, { authorization: 'Bearer hmcp_wrong' });
  assert.equal(wrong.status, 401);
  // No public URL: no OAuth metadata to point at.
  assert.doesNotMatch(wrong.headers.get('www-authenticate') ?? '', /resource_metadata/);
});

test('a full token works in both eras; the audit line names it and holds no secret', async () => {
  const token = createStaticToken(gw.home, 'claude-code');
  assert.match(token, /^hmcp_[A-Za-z0-9_-]{43}$/);
  for (const era of ERAS) {
    const client = await connectWithToken(gw.mcpUrl, era, token);
    const { data, isError } = await call(client, 'tool_search', { queries: ['read a file'] });
    assert.equal(isError, false, JSON.stringify(data));
    await client.close();
  }
  const lines = auditLines(gw.home).filter((l) => l.path === '/mcp' && l.client === 'claude-code');
  assert.ok(lines.some((l) => l.rpc_method === 'tools/call' && l.tool === 'tool_search' && l.grant === 'static' && l.scope === 'hermes:full' && l.outcome === 'ok'));
  assert.ok(!JSON.stringify(auditLines(gw.home)).includes(token));
  assert.ok(!gw.rawLog().includes(token));
  const listed = authCli(gw.home, ['token', 'list', '--json']);
  assert.deepEqual((listed.json.tokens as Array<{ name: string }>).map((t) => t.name), ['claude-code']);
  assert.ok(!listed.stdout.includes(token));
});

test('a read-only token calling terminal is refused SCOPE_INSUFFICIENT before it runs; reads and the process list pass', async () => {
  const token = createStaticToken(gw.home, 'reader', 'read');
  for (const era of ERAS) {
    const client = await connectWithToken(gw.mcpUrl, era, token);
    const session = await sessionToken(client);
    const marker = `${gw.home}/terminal-ran-${era}`;
    const refused = await viaBridge(client, 'terminal', { command: `touch ${marker}` }, session);
    assert.equal(refused.isError, true);
    assert.equal(refused.data.error, 'SCOPE_INSUFFICIENT');
    assert.match(String(refused.data.message), /terminal needs the hermes:full scope/);
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(marker), false, 'terminal ran');
    assert.equal((await viaBridge(client, 'read_file', { path: `${gw.home}/SOUL.md` })).isError, false);
    assert.equal((await viaBridge(client, 'process_manage', { action: 'list' }, session)).isError, false);
    assert.equal((await viaBridge(client, 'process_manage', { action: 'kill', session_id: 'proc_x' }, session)).data.error, 'SCOPE_INSUFFICIENT');
    assert.equal((await call(client, 'startup_context')).isError, false);
    await client.close();
  }
  assert.ok(auditLines(gw.home).some((l) => l.client === 'reader' && l.tool === 'terminal' && l.outcome === 'error:SCOPE_INSUFFICIENT'));
});

test('rotation replaces the secret at once; revocation ends it at once; an unknown name is exit 3', async () => {
  const first = createStaticToken(gw.home, 'script');
  const rotated = authCli(gw.home, ['token', 'rotate', 'script', '--json']);
  assert.equal(rotated.status, 0);
  assert.equal((await rawPost(gw.mcpUrl, INIT, { authorization: `Bearer ${first}` })).status, 401);
  assert.equal((await rawPost(gw.mcpUrl, INIT, { authorization: `Bearer ${String(rotated.json.token)}` })).status, 200);
  assert.equal(authCli(gw.home, ['token', 'create', 'script']).status, 4, 'a taken name is refused');
  assert.equal(authCli(gw.home, ['revoke', 'script', '--json']).json.revoked, 'static_token');
  assert.equal((await rawPost(gw.mcpUrl, INIT, { authorization: `Bearer ${String(rotated.json.token)}` })).status, 401);
  assert.equal(authCli(gw.home, ['revoke', 'script']).status, 3);
});

test('every subcommand has --help; usage errors are exit 2', () => {
  for (const cmd of ['approve', 'pending', 'clients', 'revoke', 'token']) {
    const r = authCli(gw.home, [cmd, '--help']);
    assert.equal(r.status, 0, cmd);
    assert.match(r.stdout, new RegExp(`Usage: hermes-mcp-auth ${cmd}`));
  }
  assert.equal(authCli(gw.home, ['frobnicate']).status, 2);
  assert.equal(authCli(gw.home, ['token', 'create', 'x', '--scope', 'admin']).status, 2);
});

test('a 2025-era session opened with one token is "not found" for another', async () => {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const alice = createStaticToken(gw.home, 'alice');
  const mallory = createStaticToken(gw.home, 'mallory');
  const transport = new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${alice}` } } });
  const client = new Client({ name: 'alice', version: '1' });
  await client.connect(transport);
  const sessionId = transport.sessionId!;
  assert.ok(sessionId);
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
  assert.equal((await rawPost(gw.mcpUrl, list, headers(mallory))).status, 404);
  assert.equal((await rawPost(gw.mcpUrl, list, headers(alice))).status, 200);
  assert.ok(auditLines(gw.home).some((l) => l.client === 'mallory' && l.outcome === 'session_foreign'));
  await client.close();
});
