import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileDiff, unifiedDiff } from '../../../../supervisor/tools/files/patch/unified-diff.js';

// Hermes' diff shape: difflib.unified_diff with a/ b/ headers, 3 context lines, a one-line range as its start alone.

test('equal texts give no diff', () => {
  assert.equal(fileDiff('x.txt', 'same\n', 'same\n'), '');
});

test('a one-line change: a/ b/ headers, ranges without ,1', () => {
  assert.equal(fileDiff('x.txt', 'one\n', 'two\n'), '--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-one\n+two\n');
});

test('three lines of context, a multi-line range keeps its count', () => {
  const before = ['1', '2', '3', '4', '5', '6', '7', '8', '9'].join('\n') + '\n';
  const after = before.replace('5\n', 'five\n');
  assert.equal(unifiedDiff('old', 'new', before, after), '--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n');
});

test('a created file: the empty side is written start-1,0', () => {
  assert.equal(fileDiff('n.txt', '', 'a\nb\n'), '--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n');
});

test('a missing final newline is marked as patch expects', () => {
  assert.equal(fileDiff('x', 'a\n', 'a'), '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n');
});
