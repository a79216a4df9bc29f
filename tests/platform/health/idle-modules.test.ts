import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startGatewayBin } from '../../gates/run.js';
import { tempDirs } from '../../helpers/temp.js';

// Every module loaded at startup counts against the idle-RSS budget, so the heavy ones a gateway
// may never need are loaded on first use: yaml (no Hermes config.yaml, skill or bridge registry
// yet), the Honcho SDK (no Honcho configured), piscina (no big result yet), yauzl and saxes (no
// Word document or workbook read yet), and of prom-client
// only its four classes (its index pulls the pushgateway, cluster support and the OpenTelemetry
// API). The real bin runs with a preload that lists the CommonJS modules it loaded when it exits.

const dirs = tempDirs();
after(() => dirs.removeAll());

test('an idle gateway loads none of the modules it only needs on first use', async () => {
  const home = dirs.make('hmcp-idle-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const list = join(home, 'modules.txt');
  const preload = join(home, 'list-modules.cjs');
  writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join('\\n')));\n`);
  const gateway = await startGatewayBin({
    HERMES_HOME: home,
    HOME: home,
    HERMES_MCP_ROOTS: home,
    HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,graph,browser,hermes_tools,web_provider',
    NODE_OPTIONS: `--require ${preload}`,
  });
  try {
    const base = gateway.url.replace(/\/mcp$/, '');
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.equal((await fetch(`${base}/metrics`)).status, 200);
  } finally {
    await gateway.stop();
  }
  const loaded = readFileSync(list, 'utf8').split('\n');
  const has = (fragment: string) => loaded.some((file) => file.includes(fragment));
  // The listing works: what the gateway does need at startup is in it.
  assert.ok(has('/node_modules/better-sqlite3/'), 'better-sqlite3 is listed');
  assert.ok(has('/node_modules/prom-client/lib/counter.js'), "prom-client's Counter is listed");
  for (const lazy of ['/node_modules/yaml/', '/node_modules/yauzl/', '/node_modules/saxes/', '/node_modules/@honcho-ai/sdk/', '/node_modules/piscina/', '/node_modules/prom-client/index.js', '/node_modules/@opentelemetry/api/']) {
    assert.ok(!has(lazy), `${lazy} is not loaded by an idle gateway`);
  }
});
