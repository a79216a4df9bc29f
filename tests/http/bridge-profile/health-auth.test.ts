import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { makeBridgeFixture } from '../../helpers/bridge.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// /health must not say ok while /mcp fails closed for want of a usable MCP_AUTH_TOKEN; it says
// `auth: "not_configured"`, and ok again once a valid token is written (read per request).
// Stand-in (Hermes API): no agent turn runs here; the bridge's own auth is under test.

const temp = tempDirs();
after(() => temp.removeAll());

test('a missing or malformed MCP_AUTH_TOKEN: /health degraded with auth not_configured, /mcp 503', async () => {
  const fx = await makeBridgeFixture(temp.make('hmcp-health-auth-'));
  const good = fx.token;
  const gw = await startTestGateway({ env: fx.env });
  const envText = (token: string) => `MCP_AUTH_TOKEN=${token}\nHERMES_ENV_PATH=${fx.dir}/hermes.env\nTASKS_DIR=${fx.tasksDir}\nAGENTS_FILE=${fx.agentsFile}\nAUDIT_LOG=${fx.auditLog}\n`;
  const health = async () => (await (await fetch(`${gw.url}/bridge/health`)).json()) as Record<string, unknown>;
  try {
    assert.equal((await health()).status, 'ok');
    assert.equal((await health()).auth, undefined);
    for (const token of ['not-hex', '']) {
      writeFileSync(fx.envFile, envText(token), { mode: 0o600 });
      const h = await health();
      assert.equal(h.status, 'degraded', `token ${JSON.stringify(token)}`);
      assert.equal(h.auth, 'not_configured');
      const mcp = await fetch(`${gw.url}/bridge/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${good}` }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      assert.equal(mcp.status, 503);
    }
    writeFileSync(fx.envFile, envText(good), { mode: 0o600 });
    assert.equal((await health()).status, 'ok');
  } finally {
    await gw.close();
    await fx.close();
  }
});
