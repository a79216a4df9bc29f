import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deobfuscateWord, finishNormalising, hermesNormalise, lowerPreservingFlags, parserLimitExceeded, type CommandHomes } from '../../../supervisor/tools/command-guards/normalise.js';

// How a command is read before any pattern sees it (Hermes' _normalize_command_for_detection, then
// whitespace and case), and Hermes' parser limits.

const HOMES: CommandHomes = { userHome: '/home/alice', hermesHome: '/home/alice/.hermes' };
/** The text every pattern sees: normalised, then lowercased. */
const normaliseCommand = (command: string, homes: CommandHomes) => finishNormalising(hermesNormalise(command, homes)).toLowerCase();

test('whitespace collapses, newlines stay, case folds', () => {
  assert.equal(normaliseCommand('  RM \t -RF\t\t/  ', HOMES), 'rm -rf /');
  assert.equal(normaliseCommand('echo a \n\n  echo b\r\n', HOMES), 'echo a\necho b');
  // Python's whitespace (\x1f) collapses too; U+FEFF, which JavaScript alone counts as space, stays.
  assert.equal(finishNormalising('rm\x1f-rf /'), 'rm -rf /');
  assert.equal(finishNormalising('rm\ufeff -rf'), 'rm\ufeff -rf');
});

test('obfuscations Hermes undoes: ANSI, NUL, fullwidth, line continuations, escapes, empty quotes, $IFS', () => {
  assert.equal(normaliseCommand('\x1b[31mrm\x1b[0m -rf /', HOMES), 'rm -rf /');
  assert.equal(normaliseCommand('r\0m -rf /', HOMES), 'rm -rf /');
  assert.equal(normaliseCommand('ｒｍ -rf /', HOMES), 'rm -rf /');
  assert.equal(normaliseCommand('rm -rf \\\n/', HOMES), 'rm -rf /');
  assert.equal(normaliseCommand('r\\m -rf /', HOMES), 'rm -rf /');
  assert.equal(normaliseCommand("r''m -rf \"\"/", HOMES), 'rm -rf /');
  assert.equal(normaliseCommand('rm${IFS}-rf$IFS/', HOMES), 'rm -rf /');
  // hermesNormalise keeps case and whitespace: the structural checks read them.
  assert.equal(hermesNormalise('RM  -Rf /', HOMES), 'RM  -Rf /');
});

test('absolute home and HERMES_HOME paths read as ~ and ~/.hermes, the longer one first', () => {
  const homes = { userHome: '/home/alice', hermesHome: '/srv/hermes/.hermes' };
  assert.equal(normaliseCommand('echo x > /home/alice/.bashrc', homes), 'echo x > ~/.bashrc');
  assert.equal(normaliseCommand('cat /srv/hermes/.hermes/config.yaml', homes), 'cat ~/.hermes/config.yaml');
  assert.equal(normaliseCommand('cat /home/alice/.hermes/.env', HOMES), 'cat ~/.hermes/.env');
  // Only a path inside the home folds; the home's own name without a '/' after it stays.
  assert.equal(normaliseCommand('ls /home/alicex/a /home/alice', HOMES), 'ls /home/alicex/a /home/alice');
});

test('a home of fewer than two components never folds (it would rewrite unrelated paths)', () => {
  assert.equal(normaliseCommand('cat /home/bob/x', { userHome: '/home', hermesHome: '/' }), 'cat /home/bob/x');
  assert.equal(normaliseCommand('cat /root/x', { userHome: '/root/', hermesHome: '/root/.hermes' }), 'cat /root/x');
});

test('flag words keep their case, every other word is lowercased', () => {
  assert.equal(lowerPreservingFlags('GIT Branch -D Main --Force'), 'git branch -D main --Force');
  assert.equal(lowerPreservingFlags('A\n-B\tC'), 'a\n-B\tc');
});

test('the parser limits: overlong, long without a separator, or too many separators', () => {
  assert.equal(parserLimitExceeded('x'.repeat(127_999) + ';'), false);
  assert.equal(parserLimitExceeded('x'.repeat(128_001)), true);
  assert.equal(parserLimitExceeded('x'.repeat(4_096)), false);
  assert.equal(parserLimitExceeded('x'.repeat(4_097)), true);
  assert.equal(parserLimitExceeded('x'.repeat(4_097) + '\n'), false);
  assert.equal(parserLimitExceeded(';'.repeat(24_999)), false);
  assert.equal(parserLimitExceeded('|'.repeat(25_000)), true);
  assert.equal(parserLimitExceeded('a&b'.repeat(25_000)), true);
});

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
