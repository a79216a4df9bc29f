import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSession, startTestGateway, viaBridge } from '../../helpers/gateway.js';

// A credential format beyond Hermes' own prefixes, printed by a command, comes back masked in the
// terminal result (the result pipeline) and never reaches the gateway's log.

test('a GitLab personal access token printed by a command is masked in the terminal result', async () => {
  const gw = await startTestGateway();
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const body = 'Xq7vR2mK9tLw4ZpN8sDe';
    // No `token:`-style key before it: only the token's own shape can give it away.
    // printf joins the prefix and the body, so only the command's output holds the whole token.
    const r = await viaBridge(client, 'terminal', { command: `printf 'pushed with %s%s\\n' glpat- ${body}` }, token);
    assert.equal(r.isError, false, JSON.stringify(r.data));
    assert.equal(r.data.output, 'pushed with glpat-...8sDe');
    assert.ok(!JSON.stringify(r.result).includes(body));
    assert.ok(!gw.rawLog().includes(body));
    await client.close();
  } finally {
    await gw.close();
  }
});
