import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanRef, imagesOf, truncateSnapshot } from '../../../supervisor/tools/browser/page-text.js';

// The snapshot text as Hermes reads it: cut at a line boundary with a note, images from `img` lines, element refs.

test('truncateSnapshot: unchanged within the limit; else whole lines within the limit less the note reserve, then the note', () => {
  assert.equal(truncateSnapshot('abc\ndef', 7), 'abc\ndef');
  const text = Array.from({ length: 50 }, (_, i) => `line ${String(i).padStart(2, '0')}`).join('\n'); // 7 characters and a newline each
  const cut = truncateSnapshot(text, 200); // reserve 100: 100 characters of lines -> 12 lines
  assert.equal(cut, `${text.split('\n').slice(0, 12).join('\n')}\n\n[... 38 more lines truncated, use browser_snapshot for full content]`);
  const big = truncateSnapshot(text, 300); // reserve 110: 190 characters -> 23 lines
  assert.match(big, /^line 00\n[\s\S]*\nline 22\n\n\[\.\.\. 27 more lines truncated/);
});

test('imagesOf: alt from the img line, src from the /url: line after it; neither is no image', () => {
  const snapshot = ['- img "Logo" [e1]', '  - /url: https://example.invalid/logo.png', '- img [e2]', '- text: x', 'img "" [e3]', '- img "Only alt"'].join('\n');
  assert.deepEqual(imagesOf(snapshot), [
    { src: 'https://example.invalid/logo.png', alt: 'Logo' },
    { src: '', alt: 'Only alt' },
  ]);
  assert.deepEqual(imagesOf(''), []);
});

test('cleanRef: eN with Hermes\' leading @ stripped; anything else is null', () => {
  assert.deepEqual(['@e5', ' e12 ', 'e999999'].map(cleanRef), ['e5', 'e12', 'e999999']);
  assert.deepEqual(['e', 'E5', 'e1234567', '@@e5', 'e5x', ''].map(cleanRef), [null, null, null, null, null, null]);
});
