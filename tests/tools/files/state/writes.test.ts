import assert from 'node:assert/strict';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BoundedMap, fileStat, fileVersion, sha256Hex, TaskFileState } from '../../../../supervisor/tools/files/state/task.js';
import { forget, knownContent, noteWrite, notePatch, overwriteBlocker, staleWarning, type FileWriters } from '../../../../supervisor/tools/files/state/writes.js';
import { tempDirs } from '../../../helpers/temp.js';

// The "sibling subagent" texts name the clock: pin the zone for exact values.
process.env.TZ = 'UTC';

const temp = tempDirs();
after(() => temp.removeAll());

const NOT_SEEN = 'exists but this task has not seen its full current content';

function setup(options: { enabled?: boolean; guard?: boolean } = {}) {
  let now = Date.UTC(2026, 6, 1, 9, 30, 0);
  const files: FileWriters = {
    enabled: options.enabled ?? true,
    guard: options.guard ?? true,
    now: () => now,
    lastWriter: new BoundedMap(100, undefined, () => now),
  };
  const task = (key: string) => new TaskFileState(key, 100, undefined, () => now);
  const dir = temp.make('state-writes-');
  const file = (name: string, content: string) => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };
  return { files, task, file, dir, tick: (ms: number) => (now += ms) };
}

/** What read_file records of a whole read: the stamp and the baseline. */
async function fullRead(task: TaskFileState, real: string, at: number, partial = false): Promise<void> {
  const version = (await fileVersion(real))!;
  task.stamps.set(real, { mtimeNs: version.mtimeNs, at, partial });
  if (!partial) task.baselines.set(real, version);
}

describe('overwriteBlocker', () => {
  test('a new path, or one read whole and unchanged, may be written', async () => {
    const { files, task, file, dir } = setup();
    const a = task('task-a');
    assert.equal(await overwriteBlocker(files, a, join(dir, 'new')), null);
    const p = file('f', 'old');
    await fullRead(a, p, files.now());
    assert.equal(await overwriteBlocker(files, a, p), null);
  });

  test('an existing file never read is refused', async () => {
    const { files, task, file } = setup();
    const p = file('f', 'old');
    const msg = await overwriteBlocker(files, task('task-a'), p);
    assert.equal(msg, `${p} ${NOT_SEEN} (never read, patched without a prior full read, or only a redacted/partial view). Read the file — every page of it, if it needs offset/limit — or use patch for a targeted edit; a stale conversation copy must not overwrite the current disk content.`);
  });

  test('a partial read is refused, in words that depend on the guard', async () => {
    const { files, task, file } = setup();
    const a = task('task-a');
    const p = file('f', 'old');
    await fullRead(a, p, files.now(), true);
    assert.equal(await overwriteBlocker(files, a, p), `${p} was last read with offset/limit pagination (partial view). Read the remaining pages, or use patch, before overwriting it.`);
    const off = setup({ guard: false });
    const b = off.task('task-b');
    const q = off.file('g', 'x');
    await fullRead(b, q, off.files.now(), true);
    assert.equal(await staleWarning(off.files, b, q, 'g'), `${q} was last read with offset/limit pagination (partial view). Re-read the whole file before overwriting it.`);
  });

  test('a file changed on disk since the read is refused', async () => {
    const { files, task, file } = setup();
    const a = task('task-a');
    const p = file('f', 'old');
    await fullRead(a, p, files.now());
    utimesSync(p, 1_000_000, 1_000_000);
    assert.equal(await overwriteBlocker(files, a, p), `${p} was modified since you last read it on disk (external edit or unrecorded writer). Re-read the file before writing.`);
  });

  test('another task wrote it: named by a digest, never by its key; before or after this task read it', async () => {
    const { files, task, file, tick } = setup();
    const a = task('task-a');
    const b = task('task-b');
    const p = file('f', 'old');
    await noteWrite(files, b, p, sha256Hex(Buffer.from('old')));
    assert.equal(
      await overwriteBlocker(files, a, p),
      `${p} was modified by sibling subagent 'task-b977da3c' but this agent never read it. Read the file before writing to avoid overwriting the sibling's changes.`,
    );
    await fullRead(a, p, files.now());
    tick(65_000);
    await noteWrite(files, b, p, sha256Hex(Buffer.from('old')));
    assert.equal(
      await overwriteBlocker(files, a, p),
      `${p} was modified by sibling subagent 'task-b977da3c' at 09:31:05 — after this agent's last read at 09:30:00. Re-read the file before writing.`,
    );
  });

  test('after its own blind patch the task is told to read in full', async () => {
    const { files, task, file } = setup();
    const a = task('task-a');
    const p = file('f', 'new');
    await fullRead(a, p, files.now(), true);
    a.stamps.set(p, { mtimeNs: (await fileStat(p))!.mtimeNs, at: files.now(), partial: false });
    a.blindPatches.set(p, sha256Hex(Buffer.from('new')));
    assert.equal(
      await overwriteBlocker(files, a, p),
      'Your patch changed this file without a full view of its current content. Read the current file in full before a whole-file overwrite, or continue with targeted patches.',
    );
  });
});

describe('noteWrite and staleWarning', () => {
  test("the task's own write becomes its baseline and its stamp", async () => {
    const { files, task, file } = setup();
    const a = task('task-a');
    const p = file('f', 'new');
    await noteWrite(files, a, p, sha256Hex(Buffer.from('new')));
    assert.equal(a.baselines.get(p)?.sha256, sha256Hex(Buffer.from('new')));
    assert.deepEqual(files.lastWriter.get(p), { task: 'task-a', at: files.now() });
    assert.equal(await overwriteBlocker(files, a, p), null);
    assert.equal(await staleWarning(files, a, p, 'f'), null);
  });

  test('a write whose bytes are not on disk keeps no baseline', async () => {
    const { files, task, file } = setup();
    const a = task('task-a');
    const p = file('f', 'something else');
    await noteWrite(files, a, p, sha256Hex(Buffer.from('new')));
    assert.equal(a.baselines.get(p), undefined);
    assert.equal(a.stamps.get(p)?.partial, false);
  });

  test('without the guard only the stamp is kept; disabled state keeps nothing', async () => {
    const off = setup({ guard: false });
    const a = off.task('task-a');
    const p = off.file('f', 'x');
    await noteWrite(off.files, a, p, sha256Hex(Buffer.from('x')));
    assert.equal(a.baselines.get(p), undefined);
    assert.notEqual(a.stamps.get(p), undefined);
    const none = setup({ enabled: false });
    const b = none.task('task-b');
    const q = none.file('g', 'x');
    await noteWrite(none.files, b, q, sha256Hex(Buffer.from('x')));
    assert.equal(none.files.lastWriter.size, 0);
    assert.equal(b.stamps.size, 0);
  });

  test('the per-task read time: a drift is warned about, also with state disabled; an own edit moves it along', async () => {
    const { files, task, file } = setup({ enabled: false });
    const a = task('task-a');
    const p = file('f', 'x');
    a.readTimes.set(p, (await fileStat(p))!.mtimeNs);
    assert.equal(await staleWarning(files, a, p, 'f'), null);
    utimesSync(p, 1_000_000, 1_000_000);
    assert.equal(
      await staleWarning(files, a, p, 'rel/f'),
      'Warning: rel/f was modified since you last read it (external edit or concurrent agent). The content you read may be stale. Consider re-reading the file to verify before writing.',
    );
    await noteWrite(files, a, p, '');
    assert.equal(await staleWarning(files, a, p, 'f'), null);
  });
});

describe('knownContent and notePatch', () => {
  test('known content is each baseline still on disk', async () => {
    const { files, task, file } = setup();
    const a = task('task-a');
    const p = file('p', 'old');
    const q = file('q', 'old');
    await fullRead(a, p, files.now());
    await fullRead(a, q, files.now());
    writeFileSync(q, 'changed');
    assert.deepEqual(await knownContent(a, [p, q, p]), new Map([[p, sha256Hex(Buffer.from('old'))]]));
  });

  test('a patch of known bytes (or a created file) keeps a baseline; one of unknown bytes is a blind patch', async () => {
    const { files, task, file } = setup();
    const a = task('task-a');
    const known = file('known', 'old');
    await fullRead(a, known, files.now());
    const before = await knownContent(a, [known]);
    writeFileSync(known, 'new');
    const created = file('created', 'new');
    const blind = file('blind', 'new');
    const sha = (s: string) => sha256Hex(Buffer.from(s));
    await notePatch(files, a, before, [
      { real: known, readSha: sha('old'), writtenSha: sha('mid') },
      { real: known, readSha: sha('mid'), writtenSha: sha('new') },
      { real: created, readSha: '', writtenSha: sha('new') },
      { real: blind, readSha: sha('unseen'), writtenSha: sha('new') },
    ]);
    assert.equal(a.baselines.get(known)?.sha256, sha('new'));
    assert.equal(a.baselines.get(created)?.sha256, sha('new'));
    assert.equal(a.baselines.get(blind), undefined);
    assert.equal(a.blindPatches.get(blind), sha('new'));
    assert.equal(await overwriteBlocker(files, a, known), null);
    assert.match((await overwriteBlocker(files, a, blind))!, /^Your patch changed this file without a full view/);
  });

  test('forget drops what the task knew of a path', async () => {
    const { files, task, file } = setup();
    const a = task('task-a');
    const p = file('p', 'old');
    await fullRead(a, p, files.now());
    a.blindPatches.set(p, 'x');
    a.coverage.set(p, { stat: (await fileStat(p))!, ranges: [[1, 1]], redacted: false });
    forget(a, p);
    assert.deepEqual([a.baselines.get(p), a.blindPatches.get(p), a.coverage.get(p)], [undefined, undefined, undefined]);
    assert.notEqual(a.stamps.get(p), undefined, 'the read stamp stays');
  });
});
