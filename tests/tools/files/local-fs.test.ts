import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onLocalFileSystem, parseMountInfo } from '../../../supervisor/tools/files/local-fs.js';

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
