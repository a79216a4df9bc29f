import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createStaticToken } from '../helpers/auth.js';
import { makeHermesHome } from '../helpers/gateway.js';
import { tempDirs } from '../helpers/temp.js';
import { runGates, startGatewayBin, type GatewayProcess } from './run.js';

// The gates against a gateway with no backend at all (every backend optional, as the README's
// first run has it) and static-token auth on: each backend gate is skipped with /readyz's reason,
// none passes falsely, the gateway's own gates pass with --token-file, and without the token the
// gates fail rather than skip.

const BACKEND_GATES = ['2b', '3b', '4', '5b', '5c', '5d', '6b', '7'];
const dirs = tempDirs();
let gateway: GatewayProcess;
let home: string;
let tokenFile: string;

before(async () => {
  home = makeHermesHome();
  const token = createStaticToken(home, 'gates');
  tokenFile = join(dirs.make('hmcp-gates-token-'), 'token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  gateway = await startGatewayBin({
    HERMES_HOME: home,
    HOME: home,
    HERMES_MCP_ROOTS: home,
    HERMES_MCP_AUTH: 'on',
    // No Camofox may answer here: the default port could belong to a real one on this machine.
    CAMOFOX_URL: 'http://127.0.0.1:1',
    HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,graph,browser,hermes_tools,web_provider',
  });
});
after(async () => {
  await gateway?.stop();
  rmSync(home, { recursive: true, force: true });
  dirs.removeAll();
});

test('backend gates are skipped with reasons, never passed; the rest pass with --token-file', async (t) => {
  const { code, report, stderr } = await runGates(gateway.url, ['--token-file', tokenFile]);
  // "gate <id> <status>", never a line that starts like the runner's own "# pass N" summary.
  for (const g of report.gates) t.diagnostic(`gate ${g.id} ${g.status}: ${g.name}: ${g.reason}`);
  const shown = `${JSON.stringify(report.gates, null, 2)}\n${stderr}`;
  for (const g of report.gates) {
    if (BACKEND_GATES.includes(g.id)) {
      assert.equal(g.status, 'skipped', `gate ${g.id} ${g.name} must be skipped here: ${shown}`);
      assert.ok(g.reason.length > 20, `gate ${g.id} says why it was skipped: ${g.reason}`);
    } else {
      assert.equal(g.status, 'pass', `gate ${g.id} ${g.name}: ${shown}`);
    }
  }
  const reasons = new Map(report.gates.map((g) => [g.id, g.reason]));
  assert.match(reasons.get('4')!, /memory: not_configured/);
  assert.match(reasons.get('5b')!, /HERMES_MCP_LSP_TRUSTED_ROOTS/);
  assert.match(reasons.get('3b')!, /STATE_DB_MISSING/);
  assert.equal(report.ok, true);
  assert.equal(code, 0);
});

test('without the token every MCP gate fails (invalid_token), and the exit status says so', async () => {
  const { code, report } = await runGates(gateway.url);
  const byId = new Map(report.gates.map((g) => [g.id, g]));
  for (const id of ['1', '2a', '3a', '5a']) {
    assert.equal(byId.get(id)?.status, 'fail', JSON.stringify(byId.get(id)));
    assert.match(byId.get(id)!.reason, /401|invalid_token|Unauthorized/i);
  }
  assert.equal(report.ok, false);
  assert.equal(code, 1);
});
