import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deobfuscateWord } from '../../../supervisor/tools/command-guards/deobfuscate.js';

// A command word as the shell would spell it: literal substitutions and quotes resolved.

test('a word without quotes, $ or backticks comes back as it is', () => {
  for (const w of ['rm', '/usr/bin/rm', 'a\\b', 'x=1', '']) assert.equal(deobfuscateWord(w), w);
});

test('quotes are removed wherever they stand', () => {
  assert.equal(deobfuscateWord('"r"m'), 'rm');
  assert.equal(deobfuscateWord("'rm'"), 'rm');
  assert.equal(deobfuscateWord(`r'"'m`), 'rm');
});

test('$(echo x), $(printf x), $(printf %s x) and backtick forms resolve to their literal', () => {
  assert.equal(deobfuscateWord('$(echo rm)'), 'rm');
  assert.equal(deobfuscateWord('$( echo -n -e "rm" )'), 'rm');
  assert.equal(deobfuscateWord('$(printf rm)'), 'rm');
  assert.equal(deobfuscateWord("$(printf '%s' rm)"), 'rm');
  assert.equal(deobfuscateWord('`echo rm`'), 'rm');
  assert.equal(deobfuscateWord('`ECHO /bin/rm`'), '/bin/rm', 'echo is matched case-insensitively');
  assert.equal(deobfuscateWord('$(echo r)$(echo m)'), 'rm');
});

test('${v:-x} and ${v/a/x} resolve to the literal the shell would use', () => {
  assert.equal(deobfuscateWord('${X:-rm}'), 'rm');
  assert.equal(deobfuscateWord('${X/a/rm}'), 'rm');
  assert.equal(deobfuscateWord('${X:-r}m'), 'rm');
});

test('two rounds: a substitution revealed by removing quotes is resolved, a third layer is not', () => {
  assert.equal(deobfuscateWord('$(echo "r"m)'), 'rm', 'quotes removed in round one, the substitution in round two');
  assert.equal(deobfuscateWord('${A:-$(echo rm)}'), 'rm', 'substitution then default in one round');
  assert.equal(deobfuscateWord('$(echo $(echo "r"m))'), '$(echo rm)', 'the third layer is left as it is');
});

test('what is not a literal stays: a variable, a command with a pipe, an unknown substitution', () => {
  assert.equal(deobfuscateWord('$X'), '$X');
  assert.equal(deobfuscateWord('$(cat f)'), '$(cat f)');
  assert.equal(deobfuscateWord('$(echo a b)'), '$(echo a b)');
  assert.equal(deobfuscateWord('${X}'), '${X}');
});
