import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { fileStat, fileVersion, sameVersion, type BoundedMap, type StatKey, type TaskFileState } from './task.js';

// What a task's own edits and write_file's guard ask of its file state (Hermes' FileStateRegistry
// `check_stale`, `note_write`, `_stale_overwrite_blocker`, `_carry_full_write_baselines`); the
// per-task records are state/task.ts's, the reads that fill them state/index.ts's.

/** What the edits' bookkeeping shares across tasks: whether state is kept, whether the guard refuses, the clock, the last writer of each path. */
export interface FileWriters {
  readonly enabled: boolean;
  readonly guard: boolean;
  now(): number;
  readonly lastWriter: BoundedMap<{ task: string; at: number }>;
}

/** One file a patch wrote: the sha256 of the bytes it started from ('' for a file it created) and of what it wrote. */
export interface PatchWrite {
  real: string;
  readSha: string;
  writtenSha: string;
}

/**
 * Why write_file must not replace `real` (Hermes `_stale_overwrite_blocker`, with
 * FileStateRegistry.check_stale first), or null. Call under the path's lock, before writing.
 */
export async function overwriteBlocker(files: FileWriters, task: TaskFileState, real: string): Promise<string | null> {
  const stale = await checkStale(files, task, real);
  if (stale) return stale;
  const baseline = task.baselines.get(real);
  if (baseline && sameVersion(baseline, (await fileVersion(real)) ?? undefined)) return null;
  const exists = await stat(real).then(
    () => true,
    () => false,
  );
  if (!exists) return null;
  const blind = task.blindPatches.get(real);
  if (blind !== undefined && (await fileVersion(real))?.sha256 === blind) {
    return 'Your patch changed this file without a full view of its current content. Read the current file in full before a whole-file overwrite, or continue with targeted patches.';
  }
  return (
    `${real} exists but this task has not seen its full current content ` +
    '(never read, patched without a prior full read, or only a redacted/partial view). Read the ' +
    'file — every page of it, if it needs offset/limit — or use patch for a targeted edit; a stale conversation ' +
    'copy must not overwrite the current disk content.'
  );
}

/**
 * The staleness warning an edit of `real` carries (FileStateRegistry.check_stale; Hermes' patch
 * `_warning`, and write_file's before 0.20.6), or null.
 */
export async function staleWarning(files: FileWriters, task: TaskFileState, real: string, label: string): Promise<string | null> {
  return (files.enabled ? await checkStale(files, task, real) : null) ?? (await readTimeDrift(task, real, label));
}

/**
 * Hermes `_check_file_staleness` (the per-task read tracker's warning, after the registry's; the
 * only one with HERMES_DISABLE_FILE_STATE_GUARD=1): the file's mtime moved since this task last
 * read or edited it. `label`: the path as the call gave it.
 */
async function readTimeDrift(task: TaskFileState, real: string, label: string): Promise<string | null> {
  const read = task.readTimes.get(real);
  if (read === undefined) return null;
  const now = await fileStat(real);
  if (!now || now.mtimeNs === read) return null;
  return `Warning: ${label} was modified since you last read it (external edit or concurrent agent). The content you read may be stale. Consider re-reading the file to verify before writing.`;
}

/** Hermes `_update_read_timestamp` after the task's own edit: a path's read time follows it (once the task has read anything). */
async function refreshReadTime(task: TaskFileState, real: string): Promise<void> {
  if (task.readTimes.size === 0) return;
  const now = await fileStat(real);
  if (now) task.readTimes.set(real, now.mtimeNs);
}

/** FileStateRegistry.check_stale: another task wrote after this one read, the file moved on, or the last read was partial. */
async function checkStale(files: FileWriters, task: TaskFileState, real: string): Promise<string | null> {
  const stamp = task.stamps.get(real);
  const writer = files.lastWriter.get(real);
  if (!stamp && !writer) return null;
  const now = await fileStat(real);
  if (!now) return null;
  if (writer && writer.task !== task.key) {
    const who = `'${ownerLabel(writer.task)}'`;
    if (!stamp) return `${real} was modified by sibling subagent ${who} but this agent never read it. Read the file before writing to avoid overwriting the sibling's changes.`;
    if (writer.at > stamp.at) return `${real} was modified by sibling subagent ${who} at ${clock(writer.at)} — after this agent's last read at ${clock(stamp.at)}. Re-read the file before writing.`;
  }
  if (stamp) {
    if (stamp.mtimeNs !== now.mtimeNs) return `${real} was modified since you last read it on disk (external edit or unrecorded writer). Re-read the file before writing.`;
    if (stamp.partial) {
      return `${real} was last read with offset/limit pagination (partial view). ${files.guard ? 'Read the remaining pages, or use patch, before overwriting it.' : 'Re-read the whole file before overwriting it.'}`;
    }
    return null;
  }
  return `${real} was not read by this agent. Read the file first so you can write an informed edit.`;
}

/** The task's own write_file wrote `sha256` to `real` (`_mark_full_write_baseline` + FileStateRegistry.note_write). */
export async function noteWrite(files: FileWriters, task: TaskFileState, real: string, sha256: string): Promise<void> {
  await refreshReadTime(task, real);
  if (!files.enabled) return;
  if (!files.guard) return stampWrite(files, task, real, await fileStat(real));
  const version = await fileVersion(real);
  if (version && version.sha256 === sha256) {
    task.baselines.set(real, version);
    task.blindPatches.delete(real);
  }
  stampWrite(files, task, real, version);
}

function stampWrite(files: FileWriters, task: TaskFileState, real: string, version: StatKey | null): void {
  const at = files.now();
  files.lastWriter.set(real, { task: task.key, at });
  if (version) task.stamps.set(real, { mtimeNs: version.mtimeNs, at, partial: false });
}

/** `_known_full_content_sha256`: the sha256 of each path whose baseline still matches the disk (before a patch reads). */
export async function knownContent(task: TaskFileState, reals: readonly string[]): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  for (const real of new Set(reals)) {
    const baseline = task.baselines.get(real);
    if (baseline && sameVersion(baseline, (await fileVersion(real)) ?? undefined)) known.set(real, baseline.sha256);
  }
  return known;
}

/**
 * After the task's own successful patch (`_carry_full_write_baselines`): a path it knew the exact
 * bytes of (or created) keeps a baseline of what it wrote; another is noted as a blind patch.
 * `writes` in order, so a second edit of one path chains from the first.
 */
export async function notePatch(files: FileWriters, task: TaskFileState, known: ReadonlyMap<string, string>, writes: readonly PatchWrite[]): Promise<void> {
  for (const real of new Set(writes.map((w) => w.real))) await refreshReadTime(task, real);
  if (!files.enabled) return;
  if (!files.guard) {
    for (const w of writes) stampWrite(files, task, w.real, await fileStat(w.real));
    return;
  }
  const vouchedFor = new Map(known);
  const written = new Map<string, string>();
  for (const w of writes) {
    const vouched = w.readSha === '' || w.readSha === vouchedFor.get(w.real);
    if (vouched) vouchedFor.set(w.real, w.writtenSha);
    else vouchedFor.delete(w.real);
    written.set(w.real, w.writtenSha);
  }
  for (const [real, sha] of written) {
    const version = await fileVersion(real);
    if (vouchedFor.has(real)) {
      if (version && version.sha256 === sha) {
        task.baselines.set(real, version);
        task.blindPatches.delete(real);
      }
    } else {
      task.baselines.delete(real);
      task.blindPatches.set(real, sha);
    }
    stampWrite(files, task, real, version);
  }
}

/** A path this task deleted or moved away: nothing is known of what may appear there next. */
export function forget(task: TaskFileState, real: string): void {
  task.baselines.delete(real);
  task.coverage.delete(real);
  task.blindPatches.delete(real);
}

function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** How another task is named in Hermes' "sibling subagent" texts: a short digest, never an owner id (a session id is a credential). */
function ownerLabel(key: string): string {
  return `task-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
}
