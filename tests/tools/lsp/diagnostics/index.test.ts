import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { lspDiagnosticsTool } from '../../../../supervisor/tools/lsp/diagnostics/index.js';
import { tempDirs } from '../../../helpers/temp.js';
import { ctx, lspStandIn } from '../stand-in.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('lsp_diagnostics: a file tool; the server, the pull/push model and the shaped diagnostics; null when the worker did not say', async () => {
  const s = lspStandIn(temp);
  const tool = lspDiagnosticsTool(s.deps);
  assert.equal(tool.name, 'lsp_diagnostics');
  assert.deepEqual(tool.inputSchema.required, ['path']);
  s.answer({ result: [{ range: { start: { line: 0, character: 6 }, end: { line: 0, character: 7 } }, message: 'bad', severity: 2, code: 6133, source: 'ts' }], diagnosticModel: 'push', serverInfo: { name: 'typescript-language-server', version: '5' } });
  assert.deepEqual(await tool.handler({ path: s.file }, ctx), {
    structured: {
      path: s.file,
      server: 'typescript-language-server',
      model: 'push',
      diagnostics: [{ severity: 'warning', message: 'bad', line: 1, character: 7, end_line: 1, end_character: 8, code: 6133, source: 'ts' }],
      counts: { error: 0, warning: 1, information: 0, hint: 0 },
    },
  });
  s.answer({ result: [] });
  assert.deepEqual(await tool.handler({ path: s.file }, ctx), { structured: { path: s.file, server: null, model: null, diagnostics: [], counts: { error: 0, warning: 0, information: 0, hint: 0 } } });
  assert.deepEqual(s.queries.map((q) => [q.op, 'position' in q]), [['diagnostics', false], ['diagnostics', false]]);
});
