import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { lspReferencesTool } from '../../../../supervisor/tools/lsp/references/index.js';
import { tempDirs } from '../../../helpers/temp.js';
import { ctx, lspStandIn } from '../stand-in.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('lsp_references: include_declaration passed on when given; no references is an empty list', async () => {
  const s = lspStandIn(temp);
  const tool = lspReferencesTool(s.deps);
  assert.equal(tool.name, 'lsp_references');
  assert.deepEqual(Object.keys(tool.inputSchema.properties as object), ['path', 'line', 'character', 'include_declaration']);
  s.answer({ result: null });
  assert.deepEqual(await tool.handler({ path: s.file, line: 1, character: 14, include_declaration: false }, ctx), { structured: { path: s.file, line: 1, character: 14, count: 0, locations: [] } });
  await tool.handler({ path: s.file, line: 2, character: 1 }, ctx);
  assert.deepEqual(s.queries.map((q) => [q.op, q.includeDeclaration]), [['references', false], ['references', undefined]]);
});
