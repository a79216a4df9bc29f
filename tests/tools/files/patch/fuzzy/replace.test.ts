import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyReplacements, detectEscapeDrift, maybeUnescapeNewString, preserveUnicodeInReplacement } from '../../../../../supervisor/tools/files/patch/fuzzy/replace.js';

describe('applyReplacements', () => {
  test('replaces every span, right to left, so earlier offsets stay valid', () => {
    assert.equal(applyReplacements('a-b-c', [[0, 1], [4, 5]], 'XYZ', null), 'XYZ-b-XYZ');
    assert.equal(applyReplacements('a-b-c', [[4, 5], [0, 1]], '', null), '-b-');
  });

  test('re-indents the replacement from old_string indent to the file region indent', () => {
    const content = 'def f():\n        x = 1\n        y = 2\n';
    const start = content.indexOf('        x');
    const end = content.indexOf('2') + 1;
    const out = applyReplacements(content, [[start, end]], '  x = 10\n    nested\n\n  y = 20', '  x = 1\n  y = 2');
    assert.equal(out, 'def f():\n        x = 10\n          nested\n\n        y = 20\n');
  });

  test('a line indented less than old_string gets the file indent with its own stripped', () => {
    const content = '\tA\n';
    const out = applyReplacements(content, [[0, 2]], '    A\n  B', '    A');
    assert.equal(out, '\tA\n\tB\n');
  });

  test('equal indents, a blank old_string and an empty replacement are left as given', () => {
    assert.equal(applyReplacements('  a', [[0, 3]], '  b\n c', '  a'), '  b\n c');
    assert.equal(applyReplacements('  a', [[0, 3]], 'b', '\n  '), 'b');
    assert.equal(applyReplacements('  a\n', [[0, 3]], '', 'a'), '\n');
  });
});

describe('maybeUnescapeNewString', () => {
  test('\\t becomes a tab only when the matched region has a real tab', () => {
    assert.equal(maybeUnescapeNewString('a\\tb', 'x\ty', [[0, 3]]), 'a\tb');
    assert.equal(maybeUnescapeNewString('a\\tb', 'x y\tz', [[0, 3]]), 'a\\tb');
  });

  test('\\r likewise, each literal judged on its own', () => {
    assert.equal(maybeUnescapeNewString('a\\r\\tb', 'x\r\n', [[0, 3]]), 'a\r\\tb');
  });

  test('no literal: the string comes back unchanged', () => {
    assert.equal(maybeUnescapeNewString('a\\nb', 'x\n', [[0, 2]]), 'a\\nb');
  });
});

describe('detectEscapeDrift', () => {
  test("refuses when both strings have \\' and the file region does not", () => {
    const content = "print('hi')";
    const msg = detectEscapeDrift(content, [[0, content.length]], "print(\\'hi\\')", "print(\\'bye\\')");
    assert.ok(msg !== null);
    assert.ok(msg.startsWith('Escape-drift detected: old_string and new_string contain the literal sequence "\\\\\'"'), msg);
    assert.ok(msg.endsWith('without backslash-escaping "\'" characters.'));
  });

  test('the double-quote form names the quote', () => {
    const msg = detectEscapeDrift('say "x"', [[0, 7]], 'say \\"x\\"', 'say \\"y\\"');
    assert.ok(msg?.includes('literal sequence "\\\\\\""'), msg ?? 'null');
  });

  test('no drift when the region really has the backslash, or old_string lacks it, or new_string has none', () => {
    const real = "s = 'it\\'s'";
    assert.equal(detectEscapeDrift(real, [[0, real.length]], "it\\'s", "it\\'ll"), null);
    assert.equal(detectEscapeDrift("print('hi')", [[0, 11]], "print('hi')", "print(\\'x\\')"), null);
    assert.equal(detectEscapeDrift("print('hi')", [[0, 11]], "print(\\'hi\\')", 'print(1)'), null);
  });
});

describe('preserveUnicodeInReplacement', () => {
  test('unchanged spans keep the file characters, edited spans take new_string', () => {
    const content = 'x = \u201chello\u201d';
    const out = preserveUnicodeInReplacement(content, [[0, content.length]], 'x = "hello"', 'y = "hello"');
    assert.equal(out, 'y = \u201chello\u201d');
  });

  test('an inserted tail is appended after the preserved region', () => {
    // An em dash normalises to two characters: the preserved region still maps back to one.
    const content = 'a\u2014b';
    assert.equal(preserveUnicodeInReplacement(content, [[0, 3]], 'a--b', 'a--b!'), 'a\u2014b!');
  });

  test('when old_string does not normalise to the region, new_string is used as is', () => {
    assert.equal(preserveUnicodeInReplacement('a\u2014b', [[0, 3]], 'a+b', 'c'), 'c');
  });
});
