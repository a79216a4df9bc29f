import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureExamplesVenv } from '../../scripts/hermes-venv.js';
import { packageRoot } from '../../shared/package-root.js';
import { startDemoGateway, type DemoGateway } from '../helpers/demo.js';
import { assertConnected, EXAMPLES, exampleFiles, examplesReadme, runExample } from '../helpers/examples.js';
import { tempDirs } from '../helpers/temp.js';

// examples/python/: each example run as examples/README.md says, with the MCP Python SDK pinned in
// examples/python/requirements.txt (installed by the test command into .cache/examples-python-venv,
// scripts/hermes-venv.ts), against the real bin serving a fresh demo home: in the 2026-07-28 era
// (the SDK's version pin), the 2025 era (mode="legacy": initialize and Mcp-Session-Id), and once with
// the SDK's own negotiation (mode="auto", server/discover), which must settle on 2026-07-28. Each
// must print what its feature gives, as the TypeScript examples do.

const temp = tempDirs();
let gw: DemoGateway;
let python: string;
before(async () => {
  python = ensureExamplesVenv().python;
  gw = await startDemoGateway(temp);
});
after(async () => {
  await gw?.stop();
  temp.removeAll();
});

const fileOf = (name: string) => `${name.replaceAll('-', '_')}`;
const script = (name: string) => join(packageRoot(), 'examples', 'python', `${fileOf(name)}.py`);

test('every Python example is checked here and listed in examples/README.md', () => {
  assert.deepEqual(exampleFiles('python'), EXAMPLES.map((e) => fileOf(e.name)).sort());
  const readme = examplesReadme();
  for (const name of [...exampleFiles('python'), 'connect']) assert.ok(readme.includes(`(python/${name}.py)`), `examples/README.md links python/${name}.py`);
});

for (const era of ['modern', 'legacy'] as const) {
  for (const example of EXAMPLES) {
    test(`${fileOf(example.name)}.py (${era} era) prints what it got`, { timeout: 90_000 }, async () => {
      const out = await runExample(python, [script(example.name), gw.mcpUrl, ...(era === 'legacy' ? ['--legacy'] : [])]);
      assertConnected(out, gw.mcpUrl, era);
      example.check(out, gw);
    });
  }
}

test('--auto: the SDK asks the gateway (server/discover) and settles on 2026-07-28', { timeout: 90_000 }, async () => {
  const out = await runExample(python, [script('tool-search'), gw.mcpUrl, '--auto']);
  assertConnected(out, gw.mcpUrl, 'modern');
  EXAMPLES.find((e) => e.name === 'tool-search')!.check(out, gw);
});

test('without an argument an example takes the URL from HERMES_MCP_URL', { timeout: 90_000 }, async () => {
  const out = await runExample(python, [script('list-tools')], { ...process.env, HERMES_MCP_URL: gw.mcpUrl });
  assertConnected(out, gw.mcpUrl, 'modern');
  EXAMPLES.find((e) => e.name === 'list-tools')!.check(out, gw);
});
