import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { compileSearchRegex, patternHasRegexNewline } from '../../../../supervisor/tools/files/search/regex.js';

// search_files compiles rg's regex dialect into a JS RegExp that matches what rg matches, and
// refuses what rg refuses with rg's words.

const matches = (pattern: string, text: string): boolean => compileSearchRegex(pattern).test(text);

test('patternHasRegexNewline: a literal newline or a \\n escape after an even run of backslashes', () => {
  assert.equal(patternHasRegexNewline('a\nb'), true);
  assert.equal(patternHasRegexNewline('a\\nb'), true);
  assert.equal(patternHasRegexNewline('a\\\\nb'), false); // an escaped backslash, then a literal n
  assert.equal(patternHasRegexNewline('a\\\\\\nb'), true);
  assert.equal(patternHasRegexNewline('plain'), false);
});

test('a u-mode RegExp when the pattern allows it, with Unicode-aware \\w \\d \\b', () => {
  const re = compileSearchRegex('\\w+');
  assert.equal(re.flags, 'u');
  assert.equal(re.exec('__ café!')?.[0], '__');
  assert.equal(compileSearchRegex('\\w+$').exec('x café')?.[0], 'café');
  assert.equal(matches('^\\d$', '٣'), true);
  assert.equal(matches('\\bé', 'café'), false); // é is a word character: no boundary before it
  assert.equal(matches('[\\w]', 'é'), true);
});

test('POSIX classes become ASCII ranges; [[:nope:]] is not a POSIX class', () => {
  assert.equal(compileSearchRegex('[[:digit:]]+').exec('ab 123 c')?.[0], '123');
  assert.equal(matches('^[[:upper:]]$', 'a'), false);
  assert.equal(matches('^[[:xdigit:]]+$', 'dEaD42'), true);
});

test('a leading ] in a class is literal, as rg reads it', () => {
  assert.equal(matches('^[]a]$', ']'), true);
  assert.equal(matches('^[^]a]$', ']'), false);
  assert.equal(matches('^[^]a]$', 'b'), true);
});

test('inline flags: a leading (?i) becomes the i flag, a scoped one spells letters in both cases', () => {
  const re = compileSearchRegex('(?i)hello');
  assert.equal(re.flags, 'iu');
  assert.equal(re.source, 'hello');
  assert.equal(matches('a(?i:b)c', 'aBc'), true);
  assert.equal(matches('a(?i:b)c', 'ABc'), false);
  assert.equal(compileSearchRegex('a(?i:b)c').source, 'a(?:[bB])c');
  // (?-i) later turns it off again: the whole pattern is scoped, no i flag.
  const off = compileSearchRegex('(?i)ab(?-i)c');
  assert.equal(off.flags, 'u');
  assert.equal(off.test('ABc'), true);
  assert.equal(off.test('ABC'), false);
  // a letter range in a case-insensitive class gets its other case too
  assert.equal(compileSearchRegex('x(?i:[a-c])').source, 'x(?:[a-cA-C])');
});

test('\\p{Greek} is a script; (?P<name>...) is a named group', () => {
  assert.equal(matches('^\\p{Greek}+$', 'αβγ'), true);
  assert.equal(matches('^\\p{Greek}+$', 'abc'), false);
  assert.equal(compileSearchRegex('(?P<word>x+)').exec('axxb')?.groups?.word, 'xx');
});

test('look-around and backreferences are refused in rg words (INVALID_ARGUMENTS)', () => {
  const refused = (pattern: string, words: string) =>
    assert.throws(
      () => compileSearchRegex(pattern),
      (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS && e.message === `Search failed: regex parse error: ${words}`,
    );
  refused('a(?=b)', 'look-around, including look-ahead and look-behind, is not supported');
  refused('(?<!a)b', 'look-around, including look-ahead and look-behind, is not supported');
  refused('(a)\\1', 'backreferences are not supported');
  refused('(?<n>a)\\k<n>', 'backreferences are not supported');
  // inside a class or escaped these are literal
  assert.equal(matches('[(?=]', '='), true);
  assert.equal(matches('\\(\\?=', '(?='), true);
});

test('a pattern no RegExp accepts: INVALID_ARGUMENTS naming it', () => {
  assert.throws(
    () => compileSearchRegex('a(b'),
    (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.INVALID_ARGUMENTS && e.message.startsWith('Invalid regex pattern "a(b": '),
  );
});

test('a pattern u mode refuses falls back to a plain RegExp', () => {
  // `\-` outside a class is an error in u mode only.
  const re = compileSearchRegex('a\\-b');
  assert.equal(re.flags, '');
  assert.equal(re.test('a-b'), true);
});
