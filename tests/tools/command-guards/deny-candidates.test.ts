import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverBudget, type Budget } from '../../../supervisor/tools/command-guards/command-words.js';
import { denyCandidates } from '../../../supervisor/tools/command-guards/deny-candidates.js';

// Every text an operator's deny glob is matched against: the readings given, and each command-position
// word with the rest of its simple command (as written, deobfuscated, as its basename, normalised),
// through env -S and the payloads of execution findings. Lowercased and stripped as Python strips.

const homes = { hermesHome: '/h/.hermes', userHome: '/h' };
const plenty = (): Budget => ({ left: 1_000_000 });
const candidates = (c: string) => denyCandidates(c, c, c, [], [], homes, plenty());

test('each simple command of a list is a candidate of its own', () => {
  assert.deepEqual(candidates('ls && git push'), ['ls && git push', 'ls', 'git push']);
});

test('wrappers are dropped, the path cut to its basename and unquoted whitespace collapsed', () => {
  assert.deepEqual(candidates('sudo /usr/bin/git  push origin'), ['sudo /usr/bin/git  push origin', 'sudo /usr/bin/git push origin', '/usr/bin/git push origin', 'git push origin']);
});

test("env -S's split string and a shell's -c payload are read as commands", () => {
  assert.deepEqual(candidates("env -S 'git push' x"), ["env -s 'git push' x", 'git push x']);
  assert.deepEqual(candidates("bash -c 'git push'"), ["bash -c 'git push'", 'git push']);
});

test('candidates are lowercased and stripped, and the normalised spelling is one too', () => {
  assert.deepEqual(candidates('GIT PUSH\x1c '), ['git push']);
  assert.deepEqual(candidates('rm /h/.hermes/config.yaml'), ['rm /h/.hermes/config.yaml', 'rm ~/.hermes/config.yaml'], 'the Hermes home folded as Hermes spells it');
  assert.deepEqual(candidates('r\\m x'), ['r\\m x', 'rm x'], 'an escape the shell removes');
});

test('the base, grep variant, payloads and readings given come first, in order and once each', () => {
  assert.deepEqual(denyCandidates('x', 'base', 'grep', ['pay'], ['  Reading\t', 'BASE'], homes, plenty()), ['base', 'grep', 'pay', 'reading', 'x']);
});

test('each program text read again is paid for in full: nested env -S ends at the budget', () => {
  assert.throws(() => denyCandidates("env -S 'env -S x'", 'a', 'a', [], [], homes, { left: 100 }), OverBudget);
});
