import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileGlob, globMatches } from '../../../supervisor/tools/command-guards/fnmatch.js';

// Python's fnmatch.fnmatchcase as the approvals.deny globs are matched.

const matches = (glob: string, text: string) => globMatches(compileGlob(glob), text);

test('* runs over anything (newlines and / included), ? is one code point, the whole text must match', () => {
  assert.ok(matches('git push*', 'git push --force origin main'));
  assert.ok(matches('*a*b*', 'x\na/y\nb'));
  assert.ok(!matches('git push', 'git push --force'));
  assert.ok(!matches('push*', 'git push'));
  assert.ok(matches('rm ?', 'rm 😀'), 'one code point, not one UTF-16 unit');
  assert.ok(!matches('rm ?', 'rm ab'));
  assert.ok(matches('', ''));
  assert.ok(!matches('', 'x'));
});

test('sets: ranges, negation with !, a leading ] as a member, an unclosed [ as a literal', () => {
  assert.ok(matches('[a-c]x', 'bx'));
  assert.ok(!matches('[a-c]x', 'dx'));
  assert.ok(matches('[!a-c]x', 'dx'));
  assert.ok(!matches('[!a-c]x', 'ax'));
  assert.ok(matches('[]]', ']'));
  assert.ok(matches('a[b', 'a[b'));
  assert.ok(!matches('a[b', 'ab'));
});

test('a backslash is a literal, and case counts (the caller lowercases)', () => {
  assert.ok(matches('a\\*', 'a\\xyz'));
  assert.ok(!matches('a\\*', 'a*'));
  assert.ok(!matches('Git*', 'git push'));
});

test('matching stays linear on a pathological glob', () => {
  const glob = compileGlob('*a*a*a*a*a*a*a*b');
  const start = process.cpuUsage();
  assert.ok(!globMatches(glob, 'a'.repeat(20_000)));
  const used = process.cpuUsage(start);
  assert.ok((used.user + used.system) / 1000 < 4000);
});
