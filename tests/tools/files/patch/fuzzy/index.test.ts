import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findClosestLines, fuzzyFindAndReplace, strategyIndentationFlexible, strategyTrimmedBoundary, type FuzzyResult } from '../../../../../supervisor/tools/files/patch/fuzzy/index.js';
import { SequenceMatcher } from '../../../../../supervisor/tools/files/common/sequence-matcher.js';

function ok(r: FuzzyResult): Extract<FuzzyResult, { ok: true }> {
  assert.ok(r.ok, `expected a match, got: ${r.ok ? '' : r.error}`);
  return r;
}

function fail(r: FuzzyResult): Extract<FuzzyResult, { ok: false }> {
  assert.ok(!r.ok, 'expected the match to fail');
  return r;
}

describe('fuzzy chain: one case per strategy', () => {
  test('exact', () => {
    const r = ok(fuzzyFindAndReplace('foo bar baz', 'bar', 'qux'));
    assert.equal(r.strategy, 'exact');
    assert.equal(r.content, 'foo qux baz');
  });

  test('line_trimmed (and the replacement is re-indented to the file)', () => {
    const r = ok(fuzzyFindAndReplace('def f():\n    alpha  \n    beta\nend\n', 'alpha\nbeta', 'gamma\ndelta'));
    assert.equal(r.strategy, 'line_trimmed');
    assert.equal(r.content, 'def f():\n    gamma\n    delta\nend\n');
  });

  test('whitespace_normalized', () => {
    const r = ok(fuzzyFindAndReplace('x =   1 +\t2\ny = 0\n', 'x = 1 + 2', 'x = 3'));
    assert.equal(r.strategy, 'whitespace_normalized');
    assert.equal(r.content, 'x = 3\ny = 0\n');
  });

  test('indentation_flexible ignores leading whitespace only', () => {
    // In the chain every indentation_flexible match is already a line_trimmed match (as upstream),
    // so the strategy is exercised directly.
    const content = 'a\n\t  if x:\n        y()\nb';
    assert.deepEqual(strategyIndentationFlexible(content, 'if x:\ny()'), [[2, content.indexOf('y()') + 3]]);
    assert.deepEqual(strategyIndentationFlexible('  z  \n', 'z'), []);
  });

  test('escape_normalized', () => {
    const r = ok(fuzzyFindAndReplace('first\nsecond\n', 'first\\nsecond', 'only'));
    assert.equal(r.strategy, 'escape_normalized');
    assert.equal(r.content, 'only\n');
  });

  test('trimmed_boundary trims only the first and last lines', () => {
    const content = 'x\n   head\n  mid\n   tail   \ny';
    const start = content.indexOf('   head');
    assert.deepEqual(strategyTrimmedBoundary(content, 'head\n  mid\ntail'), [[start, content.indexOf('\ny')]]);
    assert.deepEqual(strategyTrimmedBoundary(content, 'head\nmid\ntail'), []);
  });

  test('unicode_normalized keeps the file’s own typography', () => {
    const r = ok(fuzzyFindAndReplace('say “hi” — now\n', 'say "hi" -- now', 'say "hello" -- now'));
    assert.equal(r.strategy, 'unicode_normalized');
    assert.equal(r.content, 'say “hello” — now\n');
  });

  test('block_anchor matches on first/last lines with a similar middle', () => {
    const file = 'function f() {\n  const a = 1;\n  const b = 2;\n  return a + b;\n}\n';
    const r = ok(fuzzyFindAndReplace(file, 'function f() {\n  const a = 1;\n  const b = 3;\n  return a + b;\n}', 'function f() {\n  return 42;\n}'));
    assert.equal(r.strategy, 'block_anchor');
    assert.equal(r.content, 'function f() {\n  return 42;\n}\n');
  });

  test('context_aware matches a block where at least half the lines are ≥80% similar', () => {
    const file = 'const alpha = computeValue(1);\nconst beta = computeValue(2);\nrest\nmore\n';
    const r = ok(fuzzyFindAndReplace(file, 'const alpha = computeValue(1)\nconst beta = computeValue(2)\nrest', 'const gamma = 3;\nrest'));
    assert.equal(r.strategy, 'context_aware');
    assert.equal(r.content, 'const gamma = 3;\nrest\nmore\n');
  });
});

describe('fuzzy chain: uniqueness and guards', () => {
  test('several matches without replace_all are ambiguous, in upstream\'s words', () => {
    const r = fail(fuzzyFindAndReplace('a = 1\nb = 2\na = 1\n', 'a = 1', 'a = 9'));
    assert.equal(r.kind, 'ambiguous');
    assert.equal(r.error, 'Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True.');
  });

  test('replace_all replaces every exact match', () => {
    const r = ok(fuzzyFindAndReplace('a = 1\nb = 2\na = 1\n', 'a = 1', 'a = 9', true));
    assert.equal(r.count, 2);
    assert.equal(r.content, 'a = 9\nb = 2\na = 9\n');
  });

  test('replace_all never applies to several similarity-based matches', () => {
    // Upstream's context_aware matches five overlapping windows here and leaves only "gone".
    const file = 'const alpha = computeValue(1);\nconst beta = computeValue(2);\nx\nconst alpha = computeValue(1);\nconst beta = computeValue(2);\n';
    const r = fail(fuzzyFindAndReplace(file, 'const alpha = computeValue(1)\nconst beta = computeValue(2)', 'gone', true));
    assert.equal(r.kind, 'ambiguous');
    assert.match(r.error, /approximate matches via the 'context_aware' strategy/);
  });

  test('no match says "Could not find"', () => {
    const r = fail(fuzzyFindAndReplace('abc\n', 'totally different', 'x'));
    assert.equal(r.kind, 'no_match');
    assert.match(r.error, /^Could not find/);
  });

  test('empty and identical strings are refused; a whitespace old_string is matched like any other', () => {
    assert.equal(fail(fuzzyFindAndReplace('abc', '', 'x')).kind, 'empty');
    assert.equal(ok(fuzzyFindAndReplace('a  b', '  ', '_')).content, 'a_b');
    assert.equal(fail(fuzzyFindAndReplace('abc', 'abc', 'abc')).kind, 'identical');
  });

  test('escape drift after a fuzzy match is refused', () => {
    // old_string/new_string carry `\'` (transport artifact); the file has a plain apostrophe.
    const file = 'msg = "don\'t stop"\nother = 1\n';
    const r = fail(fuzzyFindAndReplace(file, 'msg = "don\\\'t stop"\nother = 1', 'msg = "won\\\'t stop"\nother = 1'));
    assert.equal(r.kind, 'escape_drift');
    assert.match(r.error, /^Escape-drift detected/);
  });

  test('\\t literals become tabs when the matched region has real tabs', () => {
    const r = ok(fuzzyFindAndReplace('a\tb\nc\n', 'a b', 'x\\ty'));
    assert.equal(r.strategy, 'whitespace_normalized');
    assert.equal(r.content, 'x\ty\nc\n');
  });
});

describe('fuzzy helpers', () => {
  test('findClosestLines shows numbered context and a whitespace diagnosis', () => {
    const hint = findClosestLines('def run(self):\n    pass', 'class A:\n\tdef run(self):\n\t\treturn 1\n');
    assert.match(hint, / {3}2\| \tdef run\(self\):/);
    assert.match(hint, /Whitespace difference detected/);
  });

  test('SequenceMatcher.ratio matches difflib', () => {
    assert.equal(new SequenceMatcher('abcd', 'bcde').ratio(), 0.75);
    assert.equal(new SequenceMatcher('', '').ratio(), 1);
    assert.equal(Math.round(new SequenceMatcher('AGENT.md', 'AGENTS.md').ratio() * 1000) / 1000, 0.941);
  });
});
