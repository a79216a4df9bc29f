import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeLenient, describeBinaryFile, fileExtension, hasBinaryExtension, isExtractableDocument, isLikelyBinaryBytes } from '../../../../supervisor/tools/files/common/file-kind.js';

const rules = (over: Partial<{ sqlite: boolean; anydoc: boolean }> = {}) => ({ notebookOutputs: false, phoneticSkipped: false, sqlite: false, anydoc: false, ...over });

test('extensions compare lowercased', () => {
  assert.equal(fileExtension('/a/B.PNG'), '.png');
  assert.equal(fileExtension('/a/.bashrc'), '');
  assert.equal(hasBinaryExtension('x/Photo.JPG'), true);
  assert.equal(hasBinaryExtension('x/notes.txt'), false);
  assert.equal(hasBinaryExtension('Makefile'), false);
});

test('isExtractableDocument: notebooks, docx and xlsx always; SQLite and anydoc formats only when the Hermes followed reads them', () => {
  assert.equal(isExtractableDocument('a.ipynb', rules()), true);
  assert.equal(isExtractableDocument('a.XLSX', rules()), true);
  assert.equal(isExtractableDocument('a.db', rules()), false);
  assert.equal(isExtractableDocument('a.db', rules({ sqlite: true })), true);
  assert.equal(isExtractableDocument('a.pdf', rules()), false);
  assert.equal(isExtractableDocument('a.pdf', rules({ anydoc: true })), true);
  assert.equal(isExtractableDocument('a.txt', rules({ sqlite: true, anydoc: true })), false);
});

test('isLikelyBinaryBytes: text iff valid UTF-8 without NUL, a multi-byte sequence cut at the end tolerated', () => {
  assert.equal(isLikelyBinaryBytes(new Uint8Array()), false);
  assert.equal(isLikelyBinaryBytes(Buffer.from('plain text\n')), false);
  assert.equal(isLikelyBinaryBytes(Buffer.from('a\0b')), true);
  const euro = Buffer.from('price €');
  assert.equal(isLikelyBinaryBytes(euro.subarray(0, euro.length - 1)), false); // € cut after 2 of 3 bytes
  assert.equal(isLikelyBinaryBytes(Buffer.from([0x61, 0xff, 0x62, 0x63, 0x64, 0x65])), true); // invalid mid-sample
});

test('describeBinaryFile names the kind by magic bytes and the size as Hermes writes it', () => {
  assert.equal(describeBinaryFile(Buffer.from('89504e470d0a1a0a0000', 'hex'), 4198), 'Binary file (PNG image data, 4.1 KB) — cannot display as text.');
  assert.equal(describeBinaryFile(Buffer.from('%PDF-1.7'), 3 * 1024 * 1024), 'Binary file (PDF document, 3.0 MB) — cannot display as text.');
  assert.equal(describeBinaryFile(Buffer.from('00000018667479706d703432', 'hex'), 12), 'Binary file (ISO media container (MP4/MOV family), 12 bytes) — cannot display as text.');
  // three NULs without `ftyp` after them are no MP4
  assert.equal(describeBinaryFile(Buffer.from('0000000000000000', 'hex'), 8), 'Binary file (unknown binary, 8 bytes) — cannot display as text.');
});

test('decodeLenient replaces invalid bytes and keeps a BOM', () => {
  assert.equal(decodeLenient(Buffer.from([0x61, 0xff, 0x62])), 'a\ufffdb');
  assert.equal(decodeLenient(Buffer.from('\ufeffx')), '\ufeffx');
});
