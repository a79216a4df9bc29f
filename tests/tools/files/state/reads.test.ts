import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { noteRead, noteReadLoop, repeatedRead } from '../../../../supervisor/tools/files/state/reads.js';
import { fileStat, regionKey, TaskFileState, type ReadPage } from '../../../../supervisor/tools/files/state/task.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

const clock = () => 1000;
const task = () => new TaskFileState('owner', 16, undefined, clock);
const byVersion = { byVersion: true, failedReadsCounted: false };
const byMtime = { byVersion: false, failedReadsCounted: true };

function file(body: string): string {
  const path = join(temp.make('reads-'), 'f.txt');
  writeFileSync(path, body);
  return path;
}

function page(real: string, start: number, end: number, totalLines: number, extra: Partial<ReadPage> = {}): ReadPage {
  return { real, start, end, totalLines, whole: false, altered: false, seen: statSync(real), ...extra };
}

test('noteReadLoop counts identical reads in a row and keeps the region while the file held still', async () => {
  const t = task();
  const real = file('a\n');
  const before = await fileStat(real);
  assert.equal(await noteReadLoop(t, 'f.txt', real, 1, 100, before, byVersion), 1);
  assert.equal(await noteReadLoop(t, 'f.txt', real, 1, 100, before, byVersion), 2);
  assert.equal(await noteReadLoop(t, 'f.txt', real, 2, 100, before, byVersion), 1); // another region
  assert.equal(t.dedup.get(regionKey(real, 2, 100))?.ino, before!.ino);
  // from the 4th read in a row on (BLOCKED) the region is no longer kept
  for (let i = 2; i <= 4; i++) await noteReadLoop(t, 'f.txt', real, 2, 100, before, byVersion);
  assert.equal(t.consecutive, 4);
  assert.equal(t.dedup.get(regionKey(real, 2, 100)), undefined);
  // without a stat before it (a changed or unreadable file) nothing is kept either
  await noteReadLoop(t, 'f.txt', real, 3, 100, null, byVersion);
  assert.equal(t.dedup.get(regionKey(real, 3, 100)), undefined);
  // 0.19 (by mtime): kept whenever the file can be stat'ed
  await noteReadLoop(t, 'f.txt', real, 3, 100, null, byMtime);
  assert.notEqual(t.dedup.get(regionKey(real, 3, 100)), undefined);
});

test('repeatedRead: the stub for an unchanged region, BLOCKED from the second stub, null when changed or unknown', async () => {
  const t = task();
  const real = file('a\n');
  assert.equal(await repeatedRead(undefined, real, 1, 100, byVersion), null);
  assert.equal(await repeatedRead(t, real, 1, 100, byVersion), null);
  await noteReadLoop(t, 'f.txt', real, 1, 100, await fileStat(real), byVersion);
  assert.deepEqual(await repeatedRead(t, real, 1, 100, byVersion), { kind: 'unchanged' });
  assert.deepEqual(await repeatedRead(t, real, 1, 100, byVersion), { kind: 'blocked', times: 3 });
  assert.equal(t.dedupHits.get(regionKey(real, 1, 100)), 2);
  writeFileSync(real, 'changed size\n');
  assert.equal(await repeatedRead(t, real, 1, 100, byVersion), null);
  // a real read resets the stub count
  await noteReadLoop(t, 'f.txt', real, 1, 100, await fileStat(real), byVersion);
  assert.equal(t.dedupHits.get(regionKey(real, 1, 100)), undefined);
});

test('noteRead without the guard: only the read stamp, partial unless the page was whole', async () => {
  const t = task();
  const real = file('a\nb\n');
  await noteRead(t, page(real, 1, 1, 2), false, clock);
  assert.equal(t.stamps.get(real)?.partial, true);
  assert.equal(t.stamps.get(real)?.at, 1000);
  await noteRead(t, page(real, 1, 2, 2, { whole: true }), false, clock);
  assert.equal(t.stamps.get(real)?.partial, false);
  assert.equal(t.baselines.get(real), undefined);
});

test('noteRead with the guard: pages that together cover the file make a baseline; a redacted one does not', async () => {
  const t = task();
  const real = file('1\n2\n3\n4\n');
  await noteRead(t, page(real, 1, 2, 4), true, clock);
  assert.deepEqual(t.coverage.get(real)?.ranges, [[1, 2]]);
  assert.equal(t.baselines.get(real), undefined);
  assert.equal(t.stamps.get(real)?.partial, true);
  await noteRead(t, page(real, 3, 4, 4), true, clock);
  assert.deepEqual(t.coverage.get(real)?.ranges, [[1, 4]]);
  assert.equal(t.baselines.get(real)?.size, 8n);
  assert.equal(t.stamps.get(real)?.partial, false);

  const other = task();
  await noteRead(other, page(real, 1, 2, 4, { altered: true }), true, clock);
  await noteRead(other, page(real, 3, 4, 4), true, clock);
  assert.equal(other.coverage.get(real)?.redacted, true);
  assert.equal(other.baselines.get(real), undefined);
});

test('noteRead: a page of a file that changed since it was read records nothing', async () => {
  const t = task();
  const real = file('a\n');
  const stale = page(real, 1, 1, 1, { whole: true });
  writeFileSync(real, 'longer now\n');
  await noteRead(t, stale, true, clock);
  assert.equal(t.stamps.get(real), undefined);
  assert.equal(t.baselines.get(real), undefined);
});
