import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf16Encoding, utf16Hint, utf16Lines } from '../../../../supervisor/tools/files/read/utf16.js';

// The pure parts of read_file's UTF-16 reading; utf16OrBinary's answers are pinned through read_file (tests/tools/files/read/index.test.ts).

const le = (text: string) => Buffer.from(text, 'utf16le');
const be = (text: string) => Buffer.from(le(text)).swap16();

test('utf16Encoding: a byte-order mark first, else the parity of the zero bytes (at least two)', () => {
  assert.equal(utf16Encoding(Buffer.from([0xff, 0xfe, 0, 0])), 'utf-16-le');
  assert.equal(utf16Encoding(Buffer.from([0xfe, 0xff, 0, 0])), 'utf-16-be');
  assert.equal(utf16Encoding(le('hi')), 'utf-16-le');
  assert.equal(utf16Encoding(be('hi')), 'utf-16-be');
  assert.equal(utf16Encoding(le('h')), null); // one zero byte is not enough
  assert.equal(utf16Encoding(Buffer.from([0, 0, 0, 0])), null); // zeros at both parities
  assert.equal(utf16Encoding(Buffer.from('plain')), null);
});

test('utf16Lines: BOM dropped, CRLF made LF, no empty line after a final newline', () => {
  assert.deepEqual(utf16Lines(Buffer.concat([Buffer.from([0xff, 0xfe]), le('a\r\nb\n')]), 'utf-16-le'), ['a', 'b']);
  assert.deepEqual(utf16Lines(be('x\n\ny'), 'utf-16-be'), ['x', '', 'y']);
  assert.deepEqual(utf16Lines(Buffer.from([0xff, 0xfe]), 'utf-16-le'), []);
});

test('utf16Hint names the encoding in capitals', () => {
  assert.equal(utf16Hint('utf-16-be'), 'Transcoded from UTF-16-BE to UTF-8 for display. Text edits via patch/write_file would re-encode as UTF-8.');
});
