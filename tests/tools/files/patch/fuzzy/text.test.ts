import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockEquals, findNormalizedLineMatches, leadingWhitespace, LineIndex, mapNormToOrig, origToNormMap, unicodeNormalize } from '../../../../../supervisor/tools/files/patch/fuzzy/text.js';

test('unicodeNormalize: smart quotes, dashes, ellipsis and odd spaces become ASCII', () => {
  assert.equal(unicodeNormalize('\u201chi\u201d \u2018x\u2019 a\u2014b a\u2013b wait\u2026 n\u00a0b \u22121\u3000'), '"hi" \'x\' a--b a-b wait... n b -1 ');
});

test('origToNormMap and mapNormToOrig carry spans across a normalisation that changed lengths', () => {
  const original = 'a\u2014b\u2026c';
  assert.deepEqual(origToNormMap(original), [0, 1, 3, 4, 7, 8]);
  const norm = unicodeNormalize(original); // 'a--b...c'
  const at = norm.indexOf('b...c');
  assert.deepEqual(mapNormToOrig(origToNormMap(original), [[at, at + 5]]), [[2, 5]]);
  // a span starting inside an expansion has no original start: dropped
  assert.deepEqual(mapNormToOrig(origToNormMap(original), [[2, 4]]), []);
});

test('LineIndex spans lines, the last one clamped to the text', () => {
  const text = 'ab\ncd\nef';
  const index = new LineIndex(text.split('\n'), text.length);
  assert.deepEqual(index.span(0, 1), [0, 2]);
  assert.deepEqual(index.span(1, 3), [3, 8]);
});

test('blockEquals and findNormalizedLineMatches find every place a block of lines occurs', () => {
  assert.equal(blockEquals(['a', 'b', 'c'], 1, ['b', 'c']), true);
  assert.equal(blockEquals(['a', 'b', 'c'], 0, ['b']), false);
  const content = '  x\ny\n x\ny\n';
  const lines = content.split('\n');
  const normalized = lines.map((l) => l.trim());
  assert.deepEqual(findNormalizedLineMatches(content, lines, normalized, ['x', 'y']), [
    [0, 5],
    [6, 10],
  ]);
});

test('leadingWhitespace: spaces and tabs only', () => {
  assert.equal(leadingWhitespace(' \t x'), ' \t ');
  assert.equal(leadingWhitespace('x '), '');
});
