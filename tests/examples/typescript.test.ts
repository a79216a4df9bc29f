import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import ts from 'typescript';
import { packageRoot } from '../../shared/package-root.js';
import { startDemoGateway, type DemoGateway } from '../helpers/demo.js';
import { assertConnected, EXAMPLES, exampleFiles, examplesReadme, runExample } from '../helpers/examples.js';
import { tempDirs } from '../helpers/temp.js';

// examples/typescript/: each example, compiled by the repository's build into dist/examples/, run
// as examples/README.md says (node, the gateway's URL, --legacy for the 2025 era) against the real
// bin serving a fresh demo home, in both protocol eras one after the other; each must print what
// its feature gives (the six tools, the demo README, the tests' output from a terminal and a job,
// execute_code's output). The examples import the SDK and their shared module only, so each can be
// copied out of the repository.

const temp = tempDirs();
let gw: DemoGateway;
before(async () => {
  gw = await startDemoGateway(temp);
});
after(async () => {
  await gw?.stop();
  temp.removeAll();
});

const script = (name: string) => join(packageRoot(), 'dist', 'examples', 'typescript', `${name}.js`);

test('every TypeScript example is checked here, listed in examples/README.md, and imports only the SDK and connect.ts', () => {
  assert.deepEqual(exampleFiles('typescript'), EXAMPLES.map((e) => e.name).sort());
  const readme = examplesReadme();
  for (const name of [...exampleFiles('typescript'), 'connect']) {
    assert.ok(readme.includes(`(typescript/${name}.ts)`), `examples/README.md links typescript/${name}.ts`);
    const text = readFileSync(join(packageRoot(), 'examples', 'typescript', `${name}.ts`), 'utf8');
    const imports = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    for (const spec of imports) assert.ok(spec === '@modelcontextprotocol/client' || spec === './connect.js', `${name}.ts imports ${spec}`);
  }
});

for (const era of ['modern', 'legacy'] as const) {
  for (const example of EXAMPLES) {
    test(`${example.name}.ts (${era} era) prints what it got`, { timeout: 90_000 }, async () => {
      const out = await runExample(process.execPath, [script(example.name), gw.mcpUrl, ...(era === 'legacy' ? ['--legacy'] : [])]);
      assertConnected(out, gw.mcpUrl, era);
      if (era === 'legacy') assert.match(out.split('\n')[0]!, /Mcp-Session-Id [0-9a-f-]{8,}/);
      example.check(out, gw);
    });
  }
}

test('without an argument an example takes the URL from HERMES_MCP_URL', async () => {
  const out = await runExample(process.execPath, [script('list-tools')], { ...process.env, HERMES_MCP_URL: gw.mcpUrl });
  assertConnected(out, gw.mcpUrl, 'modern');
  EXAMPLES.find((e) => e.name === 'list-tools')!.check(out, gw);
});
