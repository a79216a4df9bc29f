import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findClosestLines, noMatchHint } from '../../../../../supervisor/tools/files/patch/fuzzy/hint.js';

const content = ['def a():', '    return 1', '', 'def b():', '    return 2', ''].join('\n');

test('findClosestLines: the most similar lines with context, numbered as Hermes shows them', () => {
  assert.equal(findClosestLines('def b():\n    return 3', content, 1, 1), '   3| \n   4| def b():\n   5|     return 2');
});

test('a whitespace-only difference is visualised (→ tab, · space)', () => {
  const tabbed = 'if x:\n\treturn y\n';
  assert.equal(
    findClosestLines('  return y', tabbed, 0, 1),
    '   2| \treturn y\n\nWhitespace difference detected (→ = tab, · = space):\n  file has: →return y\n  you sent: ··return y\nUse the exact whitespace shown in \'file has\'.',
  );
});

test('nothing similar enough, or nothing to compare: no hint', () => {
  assert.equal(findClosestLines('zzzzzzzz', content), '');
  assert.equal(findClosestLines('', content), '');
  assert.equal(findClosestLines('  \n ', content), '');
});

test('noMatchHint only for a plain "Could not find" error', () => {
  assert.equal(noMatchHint('Could not find a match', 'def b():', content).startsWith('\n\nDid you mean one of these sections?\n'), true);
  assert.equal(noMatchHint('Found 2 matches', 'def b():', content), '');
  assert.equal(noMatchHint('Could not find a match', 'zzzzzzzz', content), '');
});
