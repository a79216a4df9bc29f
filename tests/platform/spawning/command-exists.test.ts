import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { commandExists, isExecutableFile } from '../../../supervisor/platform/spawning/command-exists.js';
import { tempDirs } from '../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

/** Two PATH directories: `a` holds a non-executable `tool` and a directory `dir-tool`, `b` an executable `tool`. */
function layout() {
  const base = temp.make('hmcp-command-exists-');
  const a = join(base, 'a');
  const b = join(base, 'b');
  mkdirSync(a);
  mkdirSync(b);
  writeFileSync(join(a, 'tool'), '#!/bin/sh\n', { mode: 0o644 });
  mkdirSync(join(a, 'dir-tool'), { mode: 0o755 });
  writeFileSync(join(b, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
  chmodSync(join(b, 'tool'), 0o755);
  symlinkSync(join(b, 'tool'), join(a, 'linked'));
  return { base, a, b };
}

test('a bare name is looked up on every PATH entry; one executable regular file is enough', () => {
  const { a, b } = layout();
  assert.equal(commandExists('tool', `${a}:${b}`, '/'), true, 'the executable in the second entry counts');
  assert.equal(commandExists('tool', a, '/'), false, 'a file without the execute bit is not a command');
  assert.equal(commandExists('dir-tool', `${a}:${b}`, '/'), false, 'a searchable directory is not a command');
  assert.equal(commandExists('linked', a, '/'), true, 'a symlink to an executable is followed');
  assert.equal(commandExists('absent', `${a}:${b}`, '/'), false);
});

test('empty PATH entries are skipped, not read as the working directory', () => {
  const { b } = layout();
  assert.equal(commandExists('tool', '', b), false);
  assert.equal(commandExists('tool', '::', b), false);
  assert.equal(commandExists('tool', `:${b}:`, '/'), true);
});

test('a name with a slash is a path: absolute as is, relative to cwd, and never searched on PATH', () => {
  const { base, a, b } = layout();
  assert.equal(commandExists(join(b, 'tool'), '', '/'), true);
  assert.equal(commandExists('b/tool', '', base), true);
  assert.equal(commandExists('./tool', '', b), true);
  assert.equal(commandExists('a/tool', b, base), false, 'the non-executable one named by path; PATH is not consulted');
  assert.equal(commandExists('b/tool', b, a), false, 'relative to cwd, where there is no b/');
});

test('isExecutableFile: a regular file with the execute bit, and nothing else', () => {
  const { a, b } = layout();
  assert.equal(isExecutableFile(join(b, 'tool')), true);
  assert.equal(isExecutableFile(join(a, 'tool')), false);
  assert.equal(isExecutableFile(join(a, 'dir-tool')), false);
  assert.equal(isExecutableFile(join(a, 'missing')), false);
});
