import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { lspDocumentSymbolsTool } from '../../../../supervisor/tools/lsp/document-symbols/index.js';
import { tempDirs } from '../../../helpers/temp.js';
import { ctx, lspStandIn } from '../stand-in.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('lsp_document_symbols: the documentSymbol query, shaped with its count', async () => {
  const s = lspStandIn(temp);
  const tool = lspDocumentSymbolsTool(s.deps);
  assert.equal(tool.name, 'lsp_document_symbols');
  const r = { start: { line: 0, character: 13 }, end: { line: 0, character: 14 } };
  s.answer({ result: [{ name: 'a', kind: 14, range: r, selectionRange: r }] });
  assert.deepEqual(await tool.handler({ path: s.file }, ctx), {
    structured: { path: s.file, symbols: [{ name: 'a', kind: 'Constant', line: 1, character: 14, end_line: 1, end_character: 15 }], hierarchical: true, count: 1 },
  });
  assert.equal(s.queries[0]!.op, 'documentSymbol');
});
