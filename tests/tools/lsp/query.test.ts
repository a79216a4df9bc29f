import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isGatewayError } from '../../../shared/errors.js';
import { fileSchema, locationsAt, ok, positionSchema, query } from '../../../supervisor/tools/lsp/query.js';
import { tempDirs } from '../../helpers/temp.js';
import { lspStandIn } from './stand-in.js';

// What the LSP tools share (query.ts): the policy first, then one query to the worker host with
// 0-based positions and the configured budgets; locations shaped and counted.

const temp = tempDirs();
after(() => temp.removeAll());
const signal = new AbortController().signal;

test('schemas: a path, or a path and a 1-based position, nothing else', () => {
  assert.deepEqual(fileSchema().required, ['path']);
  assert.equal(fileSchema().additionalProperties, false);
  const position = positionSchema({ extra: { type: 'boolean' } });
  assert.deepEqual(position.required, ['path', 'line', 'character']);
  assert.deepEqual(Object.keys(position.properties as object), ['path', 'line', 'character', 'extra']);
  assert.equal((position.properties as Record<string, { minimum?: number }>).line!.minimum, 1);
});

test('a position query: the target resolved by the policy, the position made 0-based, the budgets in milliseconds', async () => {
  const s = lspStandIn(temp);
  s.answer({ result: 'raw', serverInfo: { name: 'tsserver' } });
  const r = await query(s.deps, 'hover', { path: s.file, line: 3, character: 7, include_declaration: false }, signal);
  assert.equal(r.path, s.file);
  assert.equal(r.answer.result, 'raw');
  const limits = s.deps.config.limits;
  const { launch, ...rest } = s.queries[0]! as { launch: { name: string; argv: string[]; env: Record<string, string> } };
  assert.deepEqual([launch.name, launch.argv, launch.env], ['typescript', [join(s.bin, 'typescript-language-server'), '--stdio'], { HOME: '/home/x', PATH: s.bin }]);
  assert.deepEqual(rest, {
    root: s.project,
    file: s.file,
    languageId: 'typescript',
    op: 'hover',
    position: { line: 2, character: 6 },
    includeDeclaration: false,
    budgetMs: limits.lspCallTimeoutSeconds * 1000,
    idleMs: limits.lspServerIdleSeconds * 1000,
    settleMs: limits.lspDiagnosticsSettleMs,
  });
});

test('a file query has no position; a refused target never reaches the host', async () => {
  const s = lspStandIn(temp);
  await query(s.deps, 'diagnostics', { path: s.file }, signal);
  assert.equal('position' in s.queries[0]!, false);
  assert.equal('includeDeclaration' in s.queries[0]!, false);
  await assert.rejects(query(s.deps, 'hover', { path: join(s.project, 'absent.ts'), line: 1, character: 1 }, signal), (e) => isGatewayError(e) && e.code === 'FILE_NOT_FOUND');
  assert.equal(s.queries.length, 1);
});

test('locationsAt: the locations shaped 1-based and counted, with the asked position', async () => {
  const s = lspStandIn(temp);
  s.answer({ result: [{ uri: `file://${s.file}`, range: { start: { line: 0, character: 13 }, end: { line: 0, character: 14 } } }] });
  assert.deepEqual(await locationsAt(s.deps, 'references', { path: s.file, line: 1, character: 14 }, signal), {
    structured: { path: s.file, line: 1, character: 14, count: 1, locations: [{ path: s.file, line: 1, character: 14, end_line: 1, end_character: 15 }] },
  });
  assert.equal(s.queries[0]!.op, 'references');
  assert.deepEqual(ok({ a: 1 }), { structured: { a: 1 } });
});
