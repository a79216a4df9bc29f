import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasTraversal, operationPaths, parseV4aPatch } from '../../../../../supervisor/tools/files/patch/v4a/parse.js';

test('all four operations, hunks with hints, CRLF, implicit context, End of File and \\ lines skipped', () => {
  const patch = [
    'preamble ignored',
    '*** Begin Patch',
    '*** Update File: src/app.py',
    '@@ def main @@',
    ' keep',
    '-old',
    '+new',
    'implicit',
    '\\ No newline at end of file',
    '*** End of File',
    '*** Add File: notes.txt',
    '+hello',
    '*** Delete File: gone.txt',
    '*** Move File: a.txt -> b/c.txt',
    '*** End Patch',
    'trailer ignored',
  ].join('\r\n');
  const { operations, error } = parseV4aPatch(patch);
  assert.equal(error, null);
  assert.deepEqual(operations, [
    {
      operation: 'update',
      filePath: 'src/app.py',
      hunks: [
        {
          contextHint: 'def main',
          lines: [
            { prefix: ' ', content: 'keep' },
            { prefix: '-', content: 'old' },
            { prefix: '+', content: 'new' },
            { prefix: ' ', content: 'implicit' },
          ],
        },
      ],
    },
    { operation: 'add', filePath: 'notes.txt', hunks: [{ contextHint: null, lines: [{ prefix: '+', content: 'hello' }] }] },
    { operation: 'delete', filePath: 'gone.txt', hunks: [] },
    { operation: 'move', filePath: 'a.txt', newPath: 'b/c.txt', hunks: [] },
  ]);
  assert.deepEqual(operationPaths(operations), ['src/app.py', 'notes.txt', 'gone.txt', 'a.txt', 'b/c.txt']);
});

test('an empty line inside an Update hunk is empty context; empty lines ending a hunk are separators', () => {
  const { operations } = parseV4aPatch('*** Begin Patch\n*** Update File: f\n@@\n a\n\n b\n-c\n\n\n@@\n-d\n*** End Patch');
  assert.deepEqual(
    operations[0]!.hunks.map((h) => h.lines),
    [
      [
        { prefix: ' ', content: 'a' },
        { prefix: ' ', content: '', blank: true },
        { prefix: ' ', content: 'b' },
        { prefix: '-', content: 'c' },
      ],
      [{ prefix: '-', content: 'd' }],
    ],
  );
});

test('without Begin/End markers the whole text is the patch', () => {
  const { operations, error } = parseV4aPatch('*** Delete File: x');
  assert.equal(error, null);
  assert.deepEqual(operations, [{ operation: 'delete', filePath: 'x', hunks: [] }]);
});

test('parse errors: an Update without hunks, *** Move to:, all reported together with no operations', () => {
  assert.deepEqual(parseV4aPatch('*** Begin Patch\n*** Update File: f\n*** End Patch'), { operations: [], error: "Parse error: UPDATE 'f': no hunks found" });
  assert.deepEqual(parseV4aPatch('*** Begin Patch\n*** Update File: f\n*** Move to: g\n-a\n+b\n*** Update File: h\n*** End Patch'), {
    operations: [],
    error:
      "Parse error: '*** Move to: g' is not supported; rename with '*** Move File: f -> g' and put any edits in their own '*** Update File:' block; UPDATE 'h': no hunks found",
  });
});

test('hasTraversal: a .. segment with either separator', () => {
  assert.equal(hasTraversal('../x'), true);
  assert.equal(hasTraversal('a\\..\\b'), true);
  assert.equal(hasTraversal('a/..b/c'), false);
  assert.equal(hasTraversal('a/b'), false);
});
