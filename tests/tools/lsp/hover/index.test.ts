import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { lspHoverTool } from '../../../../supervisor/tools/lsp/hover/index.js';
import { tempDirs } from '../../../helpers/temp.js';
import { ctx, lspStandIn } from '../stand-in.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('lsp_hover: the hover shaped, with the asked position; nothing to show is found: false', async () => {
  const s = lspStandIn(temp);
  const tool = lspHoverTool(s.deps);
  assert.equal(tool.name, 'lsp_hover');
  s.answer({ result: { contents: { kind: 'markdown', value: '```ts\nconst a: 1\n```' } } });
  assert.deepEqual(await tool.handler({ path: s.file, line: 1, character: 14 }, ctx), { structured: { path: s.file, line: 1, character: 14, found: true, kind: 'markdown', contents: '```ts\nconst a: 1\n```' } });
  s.answer({ result: null });
  assert.deepEqual(await tool.handler({ path: s.file, line: 1, character: 1 }, ctx), { structured: { path: s.file, line: 1, character: 1, found: false } });
  assert.deepEqual(s.queries.map((q) => q.op), ['hover', 'hover']);
});
