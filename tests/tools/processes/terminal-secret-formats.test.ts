import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeHermesHome, openSession, startTestGateway, viaBridge } from '../../helpers/gateway.js';

// A credential format beyond Hermes' own prefixes, printed by a command, comes back masked in the
// terminal result (the result pipeline) and never reaches the gateway's log. A command's relative
// operands are judged against the directory it ran in.

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

test("`cat config.yaml` is judged where the command runs: Hermes' own config in its home is redacted whole, a project's is source", async () => {
  // A project beside the Hermes home (anything under the home counts as Hermes' own, as in Hermes).
  const project = mkdtempSync(join(tmpdir(), 'hmcp-project-'));
  const home = makeHermesHome();
  const gw = await startTestGateway({ home, env: { HERMES_MCP_ROOTS: `${home}:${project}` } });
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const secret = 'Pw7' + 'xK2mQ9vL4';
    const yaml = `model: gpt-5\nauth_token: ${secret}`;
    writeFileSync(join(gw.home, 'config.yaml'), yaml);
    writeFileSync(join(project, 'config.yaml'), yaml);
    const inHome = await viaBridge(client, 'terminal', { command: 'cat config.yaml', workdir: gw.home }, token);
    assert.equal(inHome.isError, false, JSON.stringify(inHome.data));
    assert.equal(inHome.data.output, 'model: gpt-5\nauth_token: ***');
    const inProject = await viaBridge(client, 'terminal', { command: 'cat config.yaml', workdir: project }, token);
    assert.equal(inProject.isError, false, JSON.stringify(inProject.data));
    assert.equal(inProject.data.output, yaml, "a project's config.yaml is output like any other file (code mode keeps the fixture)");
    await client.close();
  } finally {
    await gw.close();
    rmSync(project, { recursive: true, force: true });
  }
});
