import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitLines, trimNewlines } from '../../../../../supervisor/tools/files/read/extract/text.js';

test("splitLines splits at every boundary Python's str.splitlines knows, without a trailing empty line", () => {
  assert.deepEqual(splitLines('a\r\nb\nc\rd\ve\ff\x1cg\x1dh\x1ei\x85j\u2028k\u2029l'), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']);
  assert.deepEqual(splitLines('a\n'), ['a']);
  assert.deepEqual(splitLines('a\n\n'), ['a', '']);
  assert.deepEqual(splitLines(''), []);
  assert.deepEqual(splitLines('\r\n'), ['']);
});

test('trimNewlines removes trailing LF only', () => {
  assert.equal(trimNewlines('a\n\n\n'), 'a');
  assert.equal(trimNewlines('a\r\n'), 'a\r');
  assert.equal(trimNewlines('a \n'), 'a ');
  assert.equal(trimNewlines('\n\n'), '');
  const same = 'no newline';
  assert.equal(trimNewlines(same), same);
});
