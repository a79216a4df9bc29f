import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { onLocalFileSystem, parseMountInfo, realpathOnLocalFs } from '../../../../supervisor/tools/files/access/real-path.js';
import { tempDirs } from '../../../helpers/temp.js';

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

// read_file reads small files on the event loop only where the mount table says the file lives on
// a local disk or memory file system: a network or FUSE mount, and anything the table does not
// hold, keeps the thread pool.

const TABLE = [
  '22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  '30 22 0:26 / /srv/nfs rw,relatime shared:9 - nfs4 server:/export rw,vers=4.2',
  '31 30 0:27 / /srv/nfs/scratch rw,relatime - tmpfs tmpfs rw',
  '32 22 0:28 / /home/u/remote rw,nosuid,nodev - fuse.sshfs u@host:/ rw,user_id=1000',
  '33 22 0:29 / /mnt/with\\040space rw - nfs server:/x rw',
  '34 22 0:30 / /work rw - 9p work rw,trans=virtio',
  '35 34 253:2 / /work rw - xfs /dev/vdb rw',
  'not a mountinfo line',
].join('\n');

test('the mount that holds a path decides: the longest mount point, the last of those stacked on one', () => {
  const table = parseMountInfo(TABLE);
  assert.equal(table.length, 7, 'the malformed line is skipped');
  assert.equal(onLocalFileSystem('/home/u/project/a.py', table), true, 'ext4 root');
  assert.equal(onLocalFileSystem('/srv/nfs/a.py', table), false, 'nfs4');
  assert.equal(onLocalFileSystem('/srv/nfs', table), false, 'the mount point itself');
  assert.equal(onLocalFileSystem('/srv/nfs/scratch/a.py', table), true, 'tmpfs mounted inside the nfs mount');
  assert.equal(onLocalFileSystem('/srv/nfsx/a.py', table), true, 'a sibling whose name only starts like the mount point');
  assert.equal(onLocalFileSystem('/home/u/remote/a.py', table), false, 'fuse');
  assert.equal(onLocalFileSystem('/mnt/with space/a.py', table), false, 'an escaped mount point');
  assert.equal(onLocalFileSystem('/work/a.py', table), true, 'xfs stacked over 9p on /work: the last one is seen');
});

test('without a mount table nothing is local', () => {
  assert.equal(onLocalFileSystem('/home/u/a.py', []), false);
  assert.equal(onLocalFileSystem('/home/u/a.py', parseMountInfo('')), false);
});
