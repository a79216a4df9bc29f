import assert from 'node:assert/strict';
import { mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  BoundedMap,
  fileStat,
  fileVersion,
  regionKey,
  sameStat,
  sameVersion,
  seenIs,
  sha256Hex,
  statKey,
  TaskFileState,
  type FileVersion,
} from '../../../../supervisor/tools/files/state/task.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

const HELLO_SHA = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';

describe("a file's identity", () => {
  test('sha256Hex', () => {
    assert.equal(sha256Hex(Buffer.from('hello')), HELLO_SHA);
  });

  test('fileStat and fileVersion of a regular file agree with stat; a version carries its hash', async () => {
    const dir = temp.make('state-task-');
    const file = join(dir, 'f');
    writeFileSync(file, 'hello');
    const st = statSync(file, { bigint: true });
    assert.deepEqual(await fileStat(file), statKey(st));
    assert.deepEqual(await fileVersion(file), { ...statKey(st), sha256: HELLO_SHA });
  });

  test('no version for a missing file, a directory or a symlink; fileStat follows the symlink', async () => {
    const dir = temp.make('state-task-');
    writeFileSync(join(dir, 'f'), 'hello');
    symlinkSync('f', join(dir, 'link'));
    mkdirSync(join(dir, 'sub'));
    assert.equal(await fileVersion(join(dir, 'missing')), null);
    assert.equal(await fileVersion(join(dir, 'sub')), null);
    assert.equal(await fileVersion(join(dir, 'link')), null);
    assert.equal(await fileStat(join(dir, 'missing')), null);
    assert.deepEqual(await fileStat(join(dir, 'link')), await fileStat(join(dir, 'f')));
  });

  test('sameStat compares every field; sameVersion also the hash and needs both', () => {
    const base: FileVersion = { dev: 1n, ino: 2n, size: 3n, mtimeNs: 4n, ctimeNs: 5n, sha256: 'a' };
    assert.equal(sameStat(base, { ...base }), true);
    for (const field of ['dev', 'ino', 'size', 'mtimeNs', 'ctimeNs'] as const) assert.equal(sameStat(base, { ...base, [field]: 99n }), false, field);
    assert.equal(sameVersion(base, { ...base }), true);
    assert.equal(sameVersion(base, { ...base, sha256: 'b' }), false);
    assert.equal(sameVersion(base, undefined), false);
    assert.equal(sameVersion(undefined, undefined), false);
  });

  test("seenIs: read_file's millisecond fstat is the file as now stat'ed, to within ten microseconds", async () => {
    const dir = temp.make('state-task-');
    const file = join(dir, 'f');
    writeFileSync(file, 'hello');
    const seen = statSync(file);
    const now = (await fileStat(file))!;
    assert.equal(seenIs(seen, now), true);
    assert.equal(seenIs(seen, { ...now, mtimeNs: now.mtimeNs + 20_000n }), false);
    assert.equal(seenIs(seen, { ...now, mtimeNs: now.mtimeNs + 5_000n }), true);
    assert.equal(seenIs(seen, { ...now, size: now.size + 1n }), false);
    utimesSync(file, 1_000_000, 1_000_000);
    assert.equal(seenIs(seen, (await fileStat(file))!), false);
  });
});

describe('BoundedMap', () => {
  test('keeps the newest `cap` entries; setting again makes an entry the newest', () => {
    const m = new BoundedMap<number>(2, undefined, () => 0);
    m.set('a', 1);
    m.set('b', 2);
    m.set('a', 3);
    m.set('c', 4);
    assert.equal(m.size, 2);
    assert.equal(m.get('b'), undefined);
    assert.equal(m.get('a'), 3);
    assert.equal(m.get('c'), 4);
  });

  test('entries expire after the TTL (not at it)', () => {
    let now = 1000;
    const m = new BoundedMap<string>(10, 50, () => now);
    m.set('k', 'v');
    now = 1050;
    assert.equal(m.get('k'), 'v');
    now = 1051;
    assert.equal(m.get('k'), undefined);
    assert.equal(m.size, 0);
  });

  test('delete, deleteWhere and clear', () => {
    const m = new BoundedMap<number>(10, undefined, () => 0);
    for (const k of ['x/1', 'x/2', 'y/1']) m.set(k, 1);
    m.deleteWhere((k) => k.startsWith('x/'));
    assert.equal(m.size, 1);
    m.delete('y/1');
    assert.equal(m.size, 0);
    m.set('z', 1);
    m.clear();
    assert.equal(m.get('z'), undefined);
  });
});

test('TaskFileState: every record bounded alike; a fresh state has no last read', () => {
  let now = 0;
  const state = new TaskFileState('owner-1', 1, 10, () => now);
  assert.equal(state.key, 'owner-1');
  assert.equal(state.lastRead, null);
  assert.equal(state.consecutive, 0);
  state.readTimes.set('/a', 1n);
  state.readTimes.set('/b', 2n);
  assert.equal(state.readTimes.get('/a'), undefined);
  state.dedupHits.set('r', 1);
  now = 11;
  assert.equal(state.dedupHits.get('r'), undefined);
});

test('regionKey separates its parts with NUL', () => {
  assert.equal(regionKey('/a', 1, 500), '/a\u00001\u0000500');
  assert.notEqual(regionKey('/a1', 1, 5), regionKey('/a', 11, 5));
});
