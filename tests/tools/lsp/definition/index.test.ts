import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { lspDefinitionTool } from '../../../../supervisor/tools/lsp/definition/index.js';
import { tempDirs } from '../../../helpers/temp.js';
import { ctx, lspStandIn } from '../stand-in.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('lsp_definition: a read-only position tool answering the definition query as 1-based locations', async () => {
  const s = lspStandIn(temp);
  const tool = lspDefinitionTool(s.deps);
  assert.equal(tool.name, 'lsp_definition');
  assert.deepEqual(tool.inputSchema.required, ['path', 'line', 'character']);
  assert.equal(tool.annotations.readOnlyHint, true);
  s.answer({ result: { targetUri: `file://${s.file}`, targetRange: { start: { line: 0, character: 0 }, end: { line: 0, character: 19 } }, targetSelectionRange: { start: { line: 0, character: 13 }, end: { line: 0, character: 14 } } } });
  assert.deepEqual(await tool.handler({ path: s.file, line: 1, character: 14 }, ctx), {
    structured: { path: s.file, line: 1, character: 14, count: 1, locations: [{ path: s.file, line: 1, character: 14, end_line: 1, end_character: 15 }] },
  });
  assert.deepEqual([s.queries[0]!.op, s.queries[0]!.position], ['definition', { line: 0, character: 13 }]);
});
