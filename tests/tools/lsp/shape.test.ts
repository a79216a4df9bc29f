import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shapeDiagnostics, shapeHover, shapeLocations, shapeSymbols } from '../../../supervisor/tools/lsp/shape.js';

// LSP results reduced to the tools' one shape: 1-based positions, file URIs as paths, enums as names.

const range = (l: number, c: number, el: number, ec: number) => ({ start: { line: l, character: c }, end: { line: el, character: ec } });

test('locations: a single Location, a list, LocationLinks (their selection range, else the target range); file URIs as paths', () => {
  assert.deepEqual(shapeLocations({ uri: 'file:///src/a%20b.ts', range: range(0, 0, 0, 4) }), [{ path: '/src/a b.ts', line: 1, character: 1, end_line: 1, end_character: 5 }]);
  assert.deepEqual(
    shapeLocations([
      { targetUri: 'file:///src/b.ts', targetRange: range(9, 0, 20, 1), targetSelectionRange: range(10, 6, 10, 9) },
      { targetUri: 'deno:/lib.d.ts', targetRange: range(2, 3, 4, 5) },
      { uri: 'file://remote-host/x.ts', range: range(1, 1, 1, 1) },
    ]),
    [
      { path: '/src/b.ts', line: 11, character: 7, end_line: 11, end_character: 10 },
      { uri: 'deno:/lib.d.ts', line: 3, character: 4, end_line: 5, end_character: 6 },
      { uri: 'file://remote-host/x.ts', line: 2, character: 2, end_line: 2, end_character: 2 },
    ],
  );
  assert.deepEqual(shapeLocations(null), []);
  assert.deepEqual(shapeLocations([]), []);
});

test('document symbols: hierarchical, at their selection range, kinds by name, details and children only when present, every level counted', () => {
  const result = [
    {
      name: 'Box',
      kind: 5,
      detail: '',
      range: range(0, 0, 9, 1),
      selectionRange: range(0, 13, 0, 16),
      children: [
        { name: 'open', kind: 6, detail: '(): void', range: range(1, 2, 3, 3), selectionRange: range(1, 2, 1, 6), children: [] },
        { name: 'odd', kind: 99, range: range(4, 2, 4, 9), selectionRange: range(4, 2, 4, 5) },
      ],
    },
  ];
  assert.deepEqual(shapeSymbols(result), {
    hierarchical: true,
    count: 3,
    symbols: [
      {
        name: 'Box',
        kind: 'Class',
        line: 1,
        character: 14,
        end_line: 1,
        end_character: 17,
        children: [
          { name: 'open', kind: 'Method', detail: '(): void', line: 2, character: 3, end_line: 2, end_character: 7 },
          { name: 'odd', kind: 'kind-99', line: 5, character: 3, end_line: 5, end_character: 6 },
        ],
      },
    ],
  });
});

test('symbol information: flat, with the container when named; not an array: no symbols', () => {
  assert.deepEqual(
    shapeSymbols([
      { name: 'f', kind: 12, containerName: 'mod', location: { uri: 'file:///a.py', range: range(3, 4, 3, 5) } },
      { name: 'X', kind: 26, containerName: '', location: { uri: 'file:///a.py', range: range(0, 0, 0, 1) } },
    ]),
    {
      hierarchical: false,
      count: 2,
      symbols: [
        { name: 'f', kind: 'Function', container: 'mod', line: 4, character: 5, end_line: 4, end_character: 6 },
        { name: 'X', kind: 'TypeParameter', line: 1, character: 1, end_line: 1, end_character: 2 },
      ],
    },
  );
  assert.deepEqual(shapeSymbols(null), { symbols: [], hierarchical: false, count: 0 });
});

test('hover: MarkupContent, a MarkedString, a list of them; blank or absent contents are not found', () => {
  assert.deepEqual(shapeHover({ contents: { kind: 'plaintext', value: 'x: number' }, range: range(2, 4, 2, 5) }), { found: true, kind: 'plaintext', contents: 'x: number', range: { line: 3, character: 5, end_line: 3, end_character: 6 } });
  assert.deepEqual(shapeHover({ contents: { kind: 'markdown', value: '**x**' } }), { found: true, kind: 'markdown', contents: '**x**' });
  assert.deepEqual(shapeHover({ contents: { language: 'ts', value: 'let x' } }), { found: true, kind: 'markdown', contents: '```ts\nlet x\n```' });
  assert.deepEqual(shapeHover({ contents: ['doc', { language: 'py', value: 'def f()' }] }), { found: true, kind: 'markdown', contents: 'doc\n\n```py\ndef f()\n```' });
  for (const empty of [null, {}, { contents: '' }, { contents: { kind: 'markdown', value: '  \n' } }, { contents: [] }]) {
    assert.deepEqual(shapeHover(empty), { found: false }, JSON.stringify(empty));
  }
});

test('diagnostics: severities by name (none is an error), counts per severity, markup messages as text, code and source when given', () => {
  const { diagnostics, counts } = shapeDiagnostics([
    { range: range(0, 0, 0, 3), message: 'bad', severity: 1, code: 2304, source: 'ts' },
    { range: range(1, 0, 1, 1), message: 'meh', severity: 2, code: 'W1', source: '' },
    { range: range(2, 0, 2, 1), message: { kind: 'markdown', value: 'see `x`' }, severity: 4 },
    { range: range(3, 0, 3, 1), message: 'unset' },
    { range: range(4, 0, 4, 1), message: 'odd', severity: 9 },
  ]);
  assert.deepEqual(diagnostics, [
    { severity: 'error', message: 'bad', line: 1, character: 1, end_line: 1, end_character: 4, code: 2304, source: 'ts' },
    { severity: 'warning', message: 'meh', line: 2, character: 1, end_line: 2, end_character: 2, code: 'W1' },
    { severity: 'hint', message: 'see `x`', line: 3, character: 1, end_line: 3, end_character: 2 },
    { severity: 'error', message: 'unset', line: 4, character: 1, end_line: 4, end_character: 2 },
    { severity: 'error', message: 'odd', line: 5, character: 1, end_line: 5, end_character: 2 },
  ]);
  assert.deepEqual(counts, { error: 3, warning: 1, information: 0, hint: 1 });
  assert.deepEqual(shapeDiagnostics(undefined), { diagnostics: [], counts: { error: 0, warning: 0, information: 0, hint: 0 } });
});
