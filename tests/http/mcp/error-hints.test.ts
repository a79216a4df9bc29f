import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call, connect, ERAS, makeHermesHome, openSession, rawPost, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// Errors that say where and what, as a client meets them on a real gateway: a missing file names
// where it was looked for and the roots, an argument put where it does not belong names where it
// goes, a deferred tool called by its name names tool_call, and a request of neither protocol era
// names both ways to make it one.

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const SESSION_TOKEN_HINT =
  'session_token goes in tool_call\'s own arguments, beside calls, not inside a call or its arguments: {"calls":[{"name":"<tool>","arguments":{...}}],"session_token":"<from session_open>"}';
const META_HINT = '_meta goes in the tools/call request\'s params, beside name and arguments, not inside arguments: {"name":"tool_call","arguments":{...},"_meta":{...}}';

describe('error hints', () => {
  let gw: TestGateway;
  const home = makeHermesHome();
  // Two roots; relative paths resolve against the first (the terminal's starting directory).
  const second = join(home, 'second-root');
  before(async () => {
    mkdirSync(second);
    gw = await startTestGateway({ home, env: { HERMES_MCP_ROOTS: `${home}:${second}` } });
  });
  after(async () => {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  });

  for (const era of ERAS) {
    test(`${era}: a missing file names where it was looked for and the project roots`, async () => {
      const client = await connect(gw.mcpUrl, era);
      const read = await viaBridge(client, 'read_file', { path: 'README.md' });
      assert.equal(read.data.error, 'FILE_NOT_FOUND');
      // Hermes' words first (the newest Hermes names the resolved path itself), then where.
      const lookedFor = join(gw.home, 'README.md');
      assert.ok(
        [`File not found: README.md (looked for ${lookedFor}; project roots: ${gw.home}, ${second})`, `File not found: ${lookedFor} (project roots: ${gw.home}, ${second})`].includes(
          read.data.message as string,
        ),
        String(read.data.message),
      );
      const search = await viaBridge(client, 'search_files', { pattern: 'x', path: 'nowhere' });
      assert.equal(search.data.error, 'FILE_NOT_FOUND');
      assert.equal(search.data.message, `Path not found: nowhere (looked for ${join(gw.home, 'nowhere')}; project roots: ${gw.home}, ${second})`);
      await client.close();
    });
  }

  test('session_token inside a call\'s arguments, or inside the call, names where it goes', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const inArguments = await call(client, 'tool_call', { calls: [{ name: 'terminal', arguments: { command: 'echo hi', session_token: token } }] });
    assert.equal(inArguments.data.error, 'INVALID_ARGUMENTS');
    assert.equal(inArguments.data.message, `invalid arguments for terminal: (root): unknown property "session_token". ${SESSION_TOKEN_HINT}`);
    const inCall = await call(client, 'tool_call', { calls: [{ name: 'terminal', arguments: { command: 'echo hi' }, session_token: token }] });
    assert.equal(inCall.data.error, 'INVALID_ARGUMENTS');
    assert.equal(inCall.data.message, `invalid arguments for tool_call: /calls/0: unknown property "session_token". ${SESSION_TOKEN_HINT}`);
    // Where it says: the call runs.
    const right = await viaBridge(client, 'terminal', { command: 'echo hi' }, token);
    assert.equal(right.isError, false, JSON.stringify(right.data));
    // A tool that refuses for another reason keeps its own words first.
    const missing = await call(client, 'tool_call', { calls: [{ name: 'terminal', arguments: { session_token: token } }] });
    assert.equal(missing.data.message, `invalid arguments for terminal: (root): missing required property "command". ${SESSION_TOKEN_HINT}`);
    // An unknown property of another name is refused as before, without a hint.
    const other = await call(client, 'tool_call', { calls: [{ name: 'terminal', arguments: { command: 'echo hi', token } }] });
    assert.equal(other.data.message, 'invalid arguments for terminal: (root): unknown property "token"');
    await client.close();
  });

  test('_meta inside arguments (tool_call\'s own, a call\'s, a public tool\'s) names where it goes', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const own = await call(client, 'tool_call', { calls: [{ name: 'tool_search', arguments: { queries: ['read'] } }], _meta: MODERN_META });
    assert.equal(own.data.message, `invalid arguments for tool_call: (root): unknown property "_meta". ${META_HINT}`);
    const deferred = await viaBridge(client, 'read_file', { path: 'x', _meta: MODERN_META });
    assert.equal(deferred.data.message, `invalid arguments for read_file: (root): unknown property "_meta". ${META_HINT}`);
    const publicTool = await call(client, 'tool_search', { queries: ['read'], _meta: MODERN_META });
    assert.equal(publicTool.data.message, `invalid arguments for tool_search: (root): unknown property "_meta". ${META_HINT}`);
    await client.close();
  });

  test('a deferred tool called directly by its name names tool_call (and the session it needs)', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const terminal = await call(client, 'terminal', { command: 'echo hi' });
    assert.equal(terminal.data.error, 'TOOL_NOT_PUBLIC');
    assert.equal(
      terminal.data.message,
      'terminal is a deferred tool: call it through tool_call (tools/call name "tool_call", arguments {"calls":[{"name":"terminal","arguments":{...}}],"session_token":"<from session_open>"}); terminal needs a session: call session_open through tool_call first for the token (or keep one 2025-era MCP session)',
    );
    const read = await call(client, 'read_file', { path: 'x' });
    assert.equal(read.data.message, 'read_file is a deferred tool: call it through tool_call (tools/call name "tool_call", arguments {"calls":[{"name":"read_file","arguments":{...}}]})');
    await client.close();
  });

  test('a request with neither an Mcp-Session-Id nor the 2026-07-28 envelope names both fixes, with the SDK\'s code and status', async () => {
    const expected =
      'Bad Request: Server not initialized: this request has no Mcp-Session-Id and no 2026-07-28 envelope. ' +
      'Sessionless (2026-07-28): add params._meta {"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}} ' +
      '(and the MCP-Protocol-Version and Mcp-Method headers, Mcp-Name for tools/call). ' +
      '2025 era: send initialize first, then its Mcp-Session-Id header on every request.';
    for (const params of [{}, { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }]) {
      const res = await rawPost(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }));
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { jsonrpc: '2.0', error: { code: -32000, message: expected }, id: null });
    }
    // Each fix works as it says.
    const modern = await rawPost(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: MODERN_META } }), {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    });
    assert.equal(modern.status, 200);
    const init = await rawPost(
      gw.mcpUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    );
    assert.equal(init.status, 200);
    const sessionId = init.headers.get('mcp-session-id');
    assert.ok(sessionId);
    const list = await rawPost(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} }), { 'mcp-session-id': sessionId });
    assert.equal(list.status, 200);
    // A request the SDK refuses for another reason keeps the SDK's answer.
    const unacceptable = await fetch(gw.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }) });
    assert.equal(unacceptable.status, 406);
  });
});
