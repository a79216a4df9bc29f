import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { onLocalFileSystem, realpathOnLocalFs } from '../../../supervisor/tools/files/local-fs.js';
import { tempDirs } from '../../helpers/temp.js';

// The file tools resolve a path on the event loop while every step stays on a local mount. Where
// it answers, it must answer exactly what realpath(3) does; where realpath fails (a missing
// component, a file used as a directory, a link loop), it must not answer at all, so the thread
// pool's realpath decides as before.

const temp = tempDirs();
after(() => temp.removeAll());

const base = fs.realpathSync(temp.make('local-realpath-'));
const local = onLocalFileSystem(base);

function layout(): string[] {
  const d = (rel: string) => join(base, rel);
  fs.mkdirSync(d('a/b/c'), { recursive: true });
  fs.writeFileSync(d('a/b/c/file.py'), 'x\n');
  fs.writeFileSync(d('a/top.txt'), 'x\n');
  fs.symlinkSync('b/c', d('a/rel-dir'));
  fs.symlinkSync(d('a/b'), d('abs-dir'));
  fs.symlinkSync('../top.txt', d('a/b/up-file'));
  fs.symlinkSync('c/../../top.txt', d('a/b/dotdot-file'));
  fs.symlinkSync('rel-dir', d('a/chain'));
  fs.symlinkSync('chain/file.py', d('a/chain-file'));
  fs.symlinkSync('top.txt/', d('a/slash-to-file'));
  fs.symlinkSync('b/', d('a/slash-to-dir'));
  fs.symlinkSync('loop-b', d('loop-a'));
  fs.symlinkSync('loop-a', d('loop-b'));
  fs.symlinkSync('missing-target', d('dangling'));
  return [
    '', 'a', 'a/b/c/file.py', 'a/rel-dir', 'a/rel-dir/file.py', 'abs-dir', 'abs-dir/c/file.py', 'a/b/up-file', 'a/b/dotdot-file',
    'a/chain', 'a/chain-file', 'a/chain/file.py', 'a/slash-to-file', 'a/slash-to-dir', 'a/slash-to-dir/c',
    // realpath fails on each of these:
    'a/top.txt/x', 'a/b/up-file/x', 'loop-a', 'loop-a/x', 'dangling', 'missing', 'a/missing/file.py',
  ].map((rel) => (rel === '' ? base : join(base, rel)));
}

test('where it answers it is realpath(3); where realpath fails it does not answer', { skip: !local && 'the temporary directory is not on a local file system here' }, () => {
  let answered = 0;
  for (const p of layout()) {
    let expected: string | undefined;
    try {
      expected = fs.realpathSync.native(p);
    } catch {
      expected = undefined;
    }
    assert.equal(realpathOnLocalFs(p), expected, p);
    if (expected !== undefined) answered++;
  }
  assert.ok(answered >= 14, `paths resolved on the event loop: ${answered}`);
  assert.equal(realpathOnLocalFs('/'), '/');
});

test('a path under /proc is left to the thread pool', () => {
  assert.equal(realpathOnLocalFs('/proc/self/status'), undefined);
});
