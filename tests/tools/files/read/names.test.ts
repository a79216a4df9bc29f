import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { unicodeVariant, variantNote } from '../../../../supervisor/tools/files/read/names.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('unicodeVariant finds the one entry that is the same name up to NFC/NFD and odd spaces or quotes', async () => {
  const dir = temp.make('names-');
  const nfd = 'cafe\u0301.txt';
  writeFileSync(join(dir, nfd), '');
  writeFileSync(join(dir, 'Screenshot\u202fat 9.png'), '');
  writeFileSync(join(dir, 'it\u2019s.md'), '');
  assert.equal(await unicodeVariant(join(dir, 'caf\u00e9.txt')), join(dir, nfd));
  assert.equal(await unicodeVariant(join(dir, 'Screenshot at 9.png')), join(dir, 'Screenshot\u202fat 9.png'));
  assert.equal(await unicodeVariant(join(dir, "it's.md")), join(dir, 'it\u2019s.md'));
  assert.equal(await unicodeVariant(join(dir, 'other.txt')), null);
  assert.equal(await unicodeVariant(join(dir, 'missing-dir', 'x')), null);
});

test('unicodeVariant: several candidates (a homoglyph collision) or only a dot-file: none', async () => {
  const dir = temp.make('names-');
  writeFileSync(join(dir, 'a\u00a0b'), '');
  writeFileSync(join(dir, 'a\u202fb'), '');
  assert.equal(await unicodeVariant(join(dir, 'a b')), null);
  writeFileSync(join(dir, '.h\u00a0x'), '');
  assert.equal(await unicodeVariant(join(dir, '.h x')), null);
});

test('variantNote names both spellings', () => {
  assert.equal(
    variantNote('a b', 'a\u00a0b'),
    "Note: 'a b' not found byte-for-byte; resolved to the unicode-equivalent file 'a\u00a0b' (invisible encoding difference: NFC/NFD or special space/quote characters).",
  );
});
