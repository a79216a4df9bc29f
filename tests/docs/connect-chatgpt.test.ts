import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { loadConfig } from '../../supervisor/platform/config.js';
import { createStaticToken } from '../helpers/auth.js';
import { rawPost, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { markedBlocks, README_ORIGIN, runReadmeCurl, shellCommands } from '../helpers/readme.js';

// The Secure MCP Tunnel section of docs/connect-chatgpt.md, followed against real gateways: its
// checks run as written; the settings file it shows names the gateway's own default URL (the one
// the rendered unit defaults to); and the extra header it has openai/tunnel-client send is one the
// gateway accepts with authentication on, resolved the way tunnel-client documents MCP_EXTRA_HEADERS
// (comma-separated `Key: Value` pairs, a value `env:NAME` read from that variable).

const PAGE = 'docs/connect-chatgpt.md';

/** KEY=value lines as systemd's EnvironmentFile and a shell read them (one level of quotes removed). */
function envFile(block: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of shellCommands(block)) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    assert.ok(m, `not a KEY=value line: ${line}`);
    vars[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
  }
  return vars;
}

const MODERN_LIST = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
});
const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };

describe('Secure MCP Tunnel: the checks of step 1', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => gw.close());

  const commands = markedBlocks('tunnel-checks', PAGE).flatMap(shellCommands);
  test('there are the readiness and OAuth-metadata checks', () => {
    assert.deepEqual(
      commands.map((c) => new URL(/https?:\/\/\S+?(?=['"\s]|$)/.exec(c)![0]).pathname),
      ['/readyz', '/.well-known/oauth-protected-resource/mcp'],
    );
  });
  for (const command of commands) {
    const path = new URL(/https?:\/\/\S+?(?=['"\s]|$)/.exec(command)![0]).pathname;
    test(`${path} answers as the page says`, { timeout: 60_000 }, async () => {
      const out = await runReadmeCurl(command, gw.url);
      if (path === '/readyz') assert.equal((JSON.parse(out) as { status: string }).status, 'ready');
      else assert.equal(out.trim(), '404', 'no OAuth metadata without a public URL: the tunnel client treats 404 as "no OAuth"');
    });
  }
});

test("the settings file names the gateway's default MCP URL, the same the rendered unit defaults to", () => {
  const [block] = markedBlocks('tunnel-env', PAGE);
  const vars = envFile(block!);
  assert.ok(vars.CONTROL_PLANE_API_KEY, 'CONTROL_PLANE_API_KEY');
  assert.match(vars.CONTROL_PLANE_TUNNEL_ID ?? '', /^tunnel_[0-9a-f]{32}$/, 'a tunnel id of the documented form');
  const defaultUrl = `http://127.0.0.1:${loadConfig({}).port}/mcp`;
  assert.equal(`${README_ORIGIN}/mcp`, defaultUrl, 'the page addresses the default port');
  assert.equal(vars.MCP_SERVER_URL, defaultUrl);
  const unit = readFileSync(join(packageRoot(), 'systemd', 'tunnel-client.service.in'), 'utf8');
  assert.match(unit, new RegExp(`^Environment=MCP_SERVER_URL=${defaultUrl.replace(/[.]/g, '\\.')}$`, 'm'));
});

describe('Secure MCP Tunnel: the last-hop credential', () => {
  let gw: TestGateway;
  let token: string;
  before(async () => {
    gw = await startTestGateway({ env: { HERMES_MCP_AUTH: 'on' } });
    token = createStaticToken(gw.home, 'tunnel');
  });
  after(async () => gw.close());

  test('the header MCP_EXTRA_HEADERS resolves to is accepted; without it the gateway answers 401', async () => {
    const [block] = markedBlocks('tunnel-auth', PAGE);
    const vars = envFile(block!);
    assert.ok(vars.MCP_EXTRA_HEADERS, 'MCP_EXTRA_HEADERS is set');
    const headers: Record<string, string> = {};
    for (const pair of vars.MCP_EXTRA_HEADERS!.split(',')) {
      const colon = pair.indexOf(':');
      const [key, value] = [pair.slice(0, colon).trim(), pair.slice(colon + 1).trim()];
      const ref = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(value);
      const resolved = ref ? vars[ref[1]!] : value;
      assert.ok(resolved, `${key}: ${value} resolves to a variable the file sets`);
      headers[key.toLowerCase()] = resolved!.replace('<token>', token);
    }
    assert.ok(headers.authorization?.includes(token), 'the token goes into the Authorization header');
    const ok = await rawPost(gw.mcpUrl, MODERN_LIST, { ...MODERN_HEADERS, ...headers });
    assert.equal(ok.status, 200, await ok.clone().text());
    const names = ((await ok.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
    assert.equal(names.length, 6);
    const refused = await rawPost(gw.mcpUrl, MODERN_LIST, MODERN_HEADERS);
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
  });
});
