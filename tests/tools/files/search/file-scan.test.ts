import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { multilineMatchingLines, scanFile, shownLine, sniffEncoding, splitFileLines, withContext } from '../../../../supervisor/tools/files/search/file-scan.js';
import type { WalkBudget } from '../../../../supervisor/tools/files/search/walk.js';
import { tempDirs } from '../../../helpers/temp.js';
import { monotonicMs } from '../../../../shared/clock.js';

const temp = tempDirs();
after(() => temp.removeAll());

const budget = (): WalkBudget => ({ entries: 0, maxEntries: 1000, deadline: monotonicMs() + 60_000, limitReason: null });

test('sniffEncoding: a UTF-8 BOM is dropped, a UTF-16 one picks the encoding', () => {
  assert.deepEqual(sniffEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x61])), { encoding: 'utf-8', bom: 3 });
  assert.deepEqual(sniffEncoding(Buffer.from([0xff, 0xfe, 0x61, 0])), { encoding: 'utf-16le', bom: 2 });
  assert.deepEqual(sniffEncoding(Buffer.from([0xfe, 0xff, 0, 0x61])), { encoding: 'utf-16be', bom: 2 });
  assert.deepEqual(sniffEncoding(Buffer.from('abc')), { encoding: 'utf-8', bom: 0 });
});

test('splitFileLines splits at \\n only (a CRLF line keeps its \\r), dropping the empty last piece', () => {
  assert.deepEqual(splitFileLines('a\r\nb\n'), ['a\r', 'b']);
  assert.deepEqual(splitFileLines('a\n\n'), ['a', '']);
  assert.deepEqual(splitFileLines(''), []);
});

test('shownLine drops the \\r and clamps to 500 code points', () => {
  assert.equal(shownLine('x\r'), 'x');
  assert.equal(shownLine('a'.repeat(600)), 'a'.repeat(500));
  const astral = '😀'.repeat(501);
  assert.equal(shownLine(astral), '😀'.repeat(500));
});

test('withContext merges the context around matches, in order, inside the file', () => {
  assert.deepEqual(withContext([1, 3], 0, 10), [1, 3]);
  assert.deepEqual(withContext([1, 3], 1, 10), [0, 1, 2, 3, 4]);
  assert.deepEqual(withContext([0, 9], 2, 10), [0, 1, 2, 7, 8, 9]);
});

test('multilineMatchingLines reports every line a match spans', () => {
  const text = 'one\ntwo\nthree\nfour\n';
  assert.deepEqual(multilineMatchingLines(text, /o\nt/g, 4), [1, 2]); // two -> three
  assert.deepEqual(multilineMatchingLines(text, /e\nt|o\nt/g, 4), [0, 1, 2]);
  assert.deepEqual(multilineMatchingLines(text, /four/g, 4), [3]);
  assert.deepEqual(multilineMatchingLines(text, /zzz/g, 4), []);
});

test('scanFile: matches, context, the keep bound; a NUL makes a UTF-8 file binary (null)', async () => {
  const dir = temp.make('scan-');
  const file = join(dir, 'a.txt');
  writeFileSync(file, 'alpha\nbeta\ngamma\nbeta again\r\n');
  assert.deepEqual(await scanFile(file, /beta/, 0, 10, budget()), { matched: 2, shown: [{ line: 2, content: 'beta' }, { line: 4, content: 'beta again' }] });
  assert.deepEqual(await scanFile(file, /gamma/, 1, 10, budget()), {
    matched: 1,
    shown: [
      { line: 2, content: 'beta' },
      { line: 3, content: 'gamma' },
      { line: 4, content: 'beta again' },
    ],
  });
  assert.deepEqual(await scanFile(file, /beta/, 0, 1, budget()), { matched: 2, shown: [{ line: 2, content: 'beta' }] });
  writeFileSync(join(dir, 'bin'), Buffer.from('beta\0'));
  assert.equal(await scanFile(join(dir, 'bin'), /beta/, 0, 10, budget()), null);
  assert.equal(await scanFile(join(dir, 'missing'), /beta/, 0, 10, budget()), null);
  assert.equal(await scanFile(dir, /beta/, 0, 10, budget()), null);
});

test('scanFile: a UTF-16 file is transcoded and searched (its NULs are no binary)', async () => {
  const dir = temp.make('scan-');
  const file = join(dir, 'u16.txt');
  writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('x\nneedle\n', 'utf16le')]));
  assert.deepEqual(await scanFile(file, /needle/, 0, 10, budget()), { matched: 1, shown: [{ line: 2, content: 'needle' }] });
});

test('scanFile with a multiline RegExp: each line a match spans', async () => {
  const dir = temp.make('scan-');
  const file = join(dir, 'm.txt');
  writeFileSync(file, 'start\nend\nother\n');
  assert.deepEqual(await scanFile(file, /unused/, 0, 10, budget(), undefined, /start\nend/g), {
    matched: 2,
    shown: [
      { line: 1, content: 'start' },
      { line: 2, content: 'end' },
    ],
  });
});
