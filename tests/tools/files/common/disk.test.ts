import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { atomicWrite, ensureParentDirs, removeCreatedDirs, withPathLocks } from '../../../../supervisor/tools/files/common/disk.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

describe('ensureParentDirs / removeCreatedDirs', () => {
  test('reports the directories it created, shallowest first, and rollback removes exactly those', async () => {
    const root = temp.make('disk-dirs-');
    mkdirSync(join(root, 'have'));
    const created = await ensureParentDirs(join(root, 'have', 'a', 'b', 'c', 'file.txt'));
    assert.deepEqual(created, [join(root, 'have', 'a'), join(root, 'have', 'a', 'b'), join(root, 'have', 'a', 'b', 'c')]);
    assert.ok(statSync(join(root, 'have', 'a', 'b', 'c')).isDirectory());
    await removeCreatedDirs(created);
    assert.deepEqual(readdirSync(join(root, 'have')), []);
    assert.ok(existsSync(join(root, 'have')));
  });

  test('an existing parent creates nothing', async () => {
    const root = temp.make('disk-dirs-');
    assert.deepEqual(await ensureParentDirs(join(root, 'file.txt')), []);
  });

  test('rollback leaves a created directory that gained content, and goes on with the rest', async () => {
    const root = temp.make('disk-dirs-');
    const created = await ensureParentDirs(join(root, 'x', 'y', 'f'));
    writeFileSync(join(root, 'x', 'keep'), 'k');
    await removeCreatedDirs(created);
    assert.deepEqual(readdirSync(join(root, 'x')), ['keep']);
  });
});

describe('atomicWrite', () => {
  test('replaces the target, keeps the given mode and leaves no temp file', async () => {
    const dir = temp.make('disk-write-');
    const target = join(dir, 'f.txt');
    writeFileSync(target, 'old');
    await atomicWrite(target, Buffer.from('new bytes'), 0o640);
    assert.equal(readFileSync(target, 'utf8'), 'new bytes');
    assert.equal(statSync(target).mode & 0o777, 0o640);
    assert.deepEqual(readdirSync(dir), ['f.txt']);
  });

  test('a new file gets the default mode through the umask', async () => {
    const dir = temp.make('disk-write-');
    const target = join(dir, 'new.txt');
    await atomicWrite(target, new Uint8Array([104, 105]));
    assert.equal(readFileSync(target, 'utf8'), 'hi');
    assert.equal(statSync(target).mode & 0o777, 0o666 & ~process.umask());
  });

  test('replacing a symlink replaces the link itself, not its target', async () => {
    const dir = temp.make('disk-write-');
    writeFileSync(join(dir, 'real'), 'real');
    symlinkSync('real', join(dir, 'link'));
    await atomicWrite(join(dir, 'link'), Buffer.from('over'));
    assert.equal(readFileSync(join(dir, 'real'), 'utf8'), 'real');
    assert.ok(!statSync(join(dir, 'link')).isSymbolicLink());
    assert.equal(readFileSync(join(dir, 'link'), 'utf8'), 'over');
  });

  test('a failed rename removes the temp file and rethrows', async () => {
    const dir = temp.make('disk-write-');
    mkdirSync(join(dir, 'target-is-dir'));
    writeFileSync(join(dir, 'target-is-dir', 'inside'), 'x');
    await assert.rejects(atomicWrite(join(dir, 'target-is-dir'), Buffer.from('x')), (e: NodeJS.ErrnoException) => e.code === 'EISDIR' || e.code === 'ENOTEMPTY');
    assert.deepEqual(readdirSync(dir), ['target-is-dir']);
  });

  test('a directory it cannot write to fails before any file exists', async (t) => {
    if (process.getuid?.() === 0) return t.skip('root writes anywhere');
    const dir = temp.make('disk-write-');
    chmodSync(dir, 0o500);
    try {
      await assert.rejects(atomicWrite(join(dir, 'f'), Buffer.from('x')), { code: 'EACCES' });
    } finally {
      chmodSync(dir, 0o700);
    }
    assert.deepEqual(readdirSync(dir), []);
  });
});

test('withPathLocks serialises writers of one path', async () => {
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const first = withPathLocks(['/p'], async () => {
    order.push('first start');
    await gate;
    order.push('first end');
  });
  const second = withPathLocks(['/p'], async () => {
    order.push('second');
  });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ['first start']);
  release();
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first start', 'first end', 'second']);
});
