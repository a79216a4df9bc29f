import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { notebookText } from '../../../../../supervisor/tools/files/read/extract/notebook.js';
import { ExtractionError } from '../../../../../supervisor/tools/files/read/extract/text.js';

const nb = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const code = (source: unknown, outputs: unknown[] = []) => ({ cell_type: 'code', source, outputs });

describe('cells', () => {
  test('each kind numbered on its own; raw cells unnumbered; sources as strings or fragments, trailing newlines trimmed', () => {
    const text = notebookText(
      nb({ cells: [{ cell_type: 'markdown', source: ['# Title\n', 'more\n\n'] }, code('x = 1\n'), { cell_type: 'raw', source: 'raw' }, code(['y', ' = 2']), { cell_type: 'other', source: 'skip' }] }),
      false,
      'n.ipynb',
    );
    assert.equal(text, '# ── Markdown cell 1 ──\n# Title\nmore\n\n# ── Code cell 1 ──\nx = 1\n\n# ── Raw cell ──\nraw\n\n# ── Code cell 2 ──\ny = 2\n');
  });

  test('nbformat v3 worksheets are read too', () => {
    assert.equal(notebookText(nb({ worksheets: [{ cells: [code('a')] }, { cells: [code('b')] }] }), false, 'n'), '# ── Code cell 1 ──\na\n\n# ── Code cell 2 ──\nb\n');
  });

  test('what is no notebook is an ExtractionError with the reason', () => {
    assert.throws(() => notebookText(Buffer.from('{nope'), false, 'n'), (e: unknown) => e instanceof ExtractionError && e.message.startsWith('Not a valid notebook: '));
    assert.throws(() => notebookText(nb([1]), false, 'n'), { message: 'Notebook root is not an object' });
    assert.throws(() => notebookText(nb({ cells: [] }), false, 'n'), { message: 'Notebook contains no cells' });
    assert.throws(() => notebookText(nb({ cells: [{ cell_type: 'widget' }, 3] }), false, 'n'), { message: 'Notebook contains no readable cells' });
  });

  test('a byte order mark is dropped only where outputs are rendered (the later Hermes)', () => {
    const bom = Buffer.concat([Buffer.from('\ufeff'), nb({ cells: [code('a')] })]);
    assert.equal(notebookText(bom, true, 'n'), '# ── Code cell 1 ──\na\n');
    assert.throws(() => notebookText(bom, false, 'n'), ExtractionError);
  });
});

describe('outputs (the later Hermes)', () => {
  const render = (outputs: unknown[], path = 'n.ipynb') => notebookText(nb({ cells: [code('c', outputs)] }), true, path);

  test('left out by Hermes 0.19', () => {
    assert.equal(notebookText(nb({ cells: [code('c', [{ output_type: 'stream', text: 'hi' }])] }), false, 'n'), '# ── Code cell 1 ──\nc\n');
  });

  test('streams: ANSI stripped, CRLF as LF, the last carriage-return frame of each line; blank streams dropped', () => {
    const out = render([{ output_type: 'stream', text: ['\x1b[32mok\x1b[0m\r\n', '10%\r50%\r100%\n'] }, { output_type: 'stream', text: '  \n' }]);
    assert.equal(out, '# ── Code cell 1 ──\nc\n\n# ── Output (cell 1) ──\nok\n100%\n');
  });

  test('errors: a header and the traceback, empty parts trimmed', () => {
    assert.equal(render([{ output_type: 'error', ename: 'ValueError', evalue: 'bad', traceback: ['Trace\x1b[1m', 'line'] }]).split('──\n').pop(), 'Error: ValueError: bad\nTrace\nline\n');
    assert.equal(render([{ output_type: 'error', ename: 'KeyboardInterrupt', evalue: '', traceback: [] }]).split('──\n').pop(), 'Error: KeyboardInterrupt\n');
  });

  test('results: text/plain, then markdown; images, HTML and widgets as placeholders', () => {
    const body = (o: unknown) => render([o]).split('──\n').pop();
    assert.equal(body({ output_type: 'execute_result', data: { 'text/plain': ['42'], 'text/markdown': 'md' } }), '42\n');
    assert.equal(body({ output_type: 'display_data', data: { 'text/plain': ' ', 'text/markdown': '**md**' } }), '**md**\n');
    assert.equal(body({ output_type: 'display_data', data: { 'image/png': 'A'.repeat(4000) } }), '[image/png output — 3 KB, omitted]\n');
    assert.equal(body({ output_type: 'display_data', data: { 'image/png': 'QUJD' } }), '[image/png output — 3 B, omitted]\n');
    assert.equal(body({ output_type: 'display_data', data: { 'text/html': '<b>x</b>' } }), '[text/html output — 8 chars, omitted]\n');
    assert.equal(body({ output_type: 'display_data', data: { 'application/vnd.jupyter.widget-view+json': {}, 'text/plain': 'w' } }), '[interactive widget — omitted]\n');
    assert.equal(body({ output_type: 'display_data', data: { 'application/pdf': 'x' } }), '[application/pdf output — omitted]\n');
    assert.equal(body({ output_type: 'display_data', data: {} }), '[unknown output — omitted]\n');
  });

  test('nbformat v3 results keep their mime data flat on the output', () => {
    assert.equal(render([{ output_type: 'pyout', text: 'v3 text' }]).split('──\n').pop(), 'v3 text\n');
    assert.equal(render([{ output_type: 'pyout', png: 'QUJD' }]).split('──\n').pop(), '[image/png output — 3 B, omitted]\n');
  });

  test('a cell output past 20,000 characters is cut, with a jq pointer to the rest', () => {
    const out = render([{ output_type: 'stream', text: 'x'.repeat(20_005) }], "my nb's.ipynb");
    assert.ok(out.endsWith(`${'x'.repeat(20)}\n… [5 output chars truncated — full output: jq -r '.cells[0].outputs' 'my nb'"'"'s.ipynb']\n`), out.slice(-120));
    const plain = render([{ output_type: 'stream', text: 'y'.repeat(21_234) }], '');
    assert.ok(plain.endsWith('\n… [1,234 output chars truncated]\n'));
  });
});
