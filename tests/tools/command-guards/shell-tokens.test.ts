import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellTokens, splitOption, tokensWithSpans } from '../../../supervisor/tools/command-guards/shell-tokens.js';

// The two ways the guards split a command into words: Python's shlex as Hermes calls it, and
// Hermes' _shell_tokens_with_spans.

test('shlex: quotes joined into their word, escapes read, <> runs their own words', () => {
  assert.deepEqual(shellTokens(`a 'b c' "d\\"e" f\\ g`), ['a', 'b c', 'd"e', 'f g']);
  assert.deepEqual(shellTokens('x"y"z\'w\''), ['xyzw']);
  assert.deepEqual(shellTokens('cat<in>>out'), ['cat', '<', 'in', '>>', 'out']);
  assert.deepEqual(shellTokens('"a\\$b\\\\c"'), ['a\\$b\\c'], 'inside double quotes only \\" and \\\\ are escapes');
  assert.deepEqual(shellTokens(' \t\n '), []);
  assert.deepEqual(shellTokens("''"), ['']);
  assert.deepEqual(shellTokens('echo # not a comment'), ['echo', '#', 'not', 'a', 'comment']);
});

test('shlex: unbalanced quoting or a trailing backslash reads as nothing', () => {
  for (const s of ["echo 'open", 'echo "open', 'echo \\']) assert.equal(shellTokens(s), null, s);
});

test('spans: each word with its place in the segment, from `start`', () => {
  const seg = "ls  'a b' c\\ d";
  const tokens = tokensWithSpans(seg, 0)!;
  assert.deepEqual(tokens.map((t) => t.value), ['ls', 'a b', 'c d']);
  for (const t of tokens) assert.ok(t.start < t.end && seg.slice(t.start, t.end).length > 0);
  assert.deepEqual(tokens.map((t) => seg.slice(t.start, t.end)), ['ls', "'a b'", 'c\\ d']);
  assert.deepEqual(tokensWithSpans(seg, 4)!.map((t) => t.value), ['a b', 'c d'], 'reading starts at start');
  // <> stay inside words here, unlike shlex.
  assert.deepEqual(tokensWithSpans('cat<in', 0)!.map((t) => t.value), ['cat<in']);
});

test('spans: a wholly single-quoted word, or NAME=\'…\', is inert data', () => {
  const inert = (s: string) => tokensWithSpans(s, 0)!.map((t) => t.inert);
  assert.deepEqual(inert(`'rm -rf /' "rm" X='a b' X="a" a'b'`), [true, false, true, false, false]);
  assert.equal(tokensWithSpans("echo 'open", 0), null);
  assert.equal(tokensWithSpans('echo \\', 0), null);
});

test('splitOption: --option=value at its first =', () => {
  assert.deepEqual(splitOption('--pre=cat'), ['--pre', 'cat']);
  assert.deepEqual(splitOption('--pre=a=b'), ['--pre', 'a=b']);
  assert.deepEqual(splitOption('-c'), ['-c', null]);
});
