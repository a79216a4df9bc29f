import { fileStat, fileVersion, READ_BLOCK_AT, regionKey, sameStat, seenIs, STUB_BLOCK_AT, type ReadLoopRules, type ReadPage, type RepeatedRead, type StatKey, type TaskFileState } from './task.js';

// What a task's reads record in its file state (state/index.ts describes it): the read-loop
// bookkeeping and the page coverage that makes a full-content baseline.
//
// Hermes' read-loop bookkeeping lives here too (tools/file_tools.py read_file_tool in 0.19,
// tools/file_tools_read_tracking.py in later releases): per (real path, offset, limit) the file as a
// read found it (`dedup`) and how many "unchanged" stubs that region got since (`dedup_hits`), and
// the last read's key with the number of times in a row it was read (`last_key`, `consecutive`).
// read_file answers from them (read/index.ts); an edit of a path forgets its regions
// (`_invalidate_dedup_for_path`), and any other tool call of the task resets the counters
// (`notify_other_tool_call`, which Hermes' dispatcher calls; here the native adapter's call hook).
// They are kept for durable owners only: a sessionless credential may serve several conversations
// at once, and a stub saying "the earlier read_file result in this conversation is still current"
// would withhold a file from a conversation that never saw it.

/** Hermes' `_READ_COVERAGE_RANGES_CAP`: past this many disjoint ranges a path's coverage restarts. */
const COVERAGE_RANGES_CAP = 256;

/**
 * Before a read (Hermes read_file_tool's dedup check): the region was read before by this task
 * and the file is as that read found it, so Hermes answers the "unchanged" stub, or BLOCKED from
 * the second stub on (`_dedup_stub_or_block`); null to read. Counts the stub.
 */
export async function repeatedRead(task: TaskFileState | undefined, real: string, offset: number, limit: number, rules: ReadLoopRules): Promise<RepeatedRead | null> {
  const key = regionKey(real, offset, limit);
  const cached = task?.dedup.get(key);
  if (!task || !cached) return null;
  const now = await fileStat(real);
  if (!now || !(rules.byVersion ? sameStat(cached, now) : cached.mtimeNs === now.mtimeNs)) return null;
  const hits = (task.dedupHits.get(key) ?? 0) + 1;
  task.dedupHits.set(key, hits);
  return hits >= STUB_BLOCK_AT ? { kind: 'blocked', times: hits + 1 } : { kind: 'unchanged' };
}

/**
 * After a read Hermes counts: the region's stub count goes, the read counts in a row, and the
 * region's de-duplication record is kept or dropped (FileStates.noteReadLoop). Returns how many
 * times in a row the region was read.
 */
export async function noteReadLoop(task: TaskFileState, input: string, real: string, offset: number, limit: number, before: StatKey | null, rules: ReadLoopRules): Promise<number> {
  const key = regionKey(real, offset, limit);
  const after = await fileStat(real);
  task.dedupHits.delete(key);
  const readKey = `read\0${input}\0${offset}\0${limit}`;
  if (task.lastRead === readKey) task.consecutive += 1;
  else {
    task.lastRead = readKey;
    task.consecutive = 1;
  }
  const count = task.consecutive;
  if (!rules.byVersion) {
    if (after) task.dedup.set(key, after);
  } else if (before && after && sameStat(before, after) && count < READ_BLOCK_AT) task.dedup.set(key, before);
  else task.dedup.delete(key);
  return count;
}

/**
 * read_file served a page (FileStates.noteRead, with file state kept): the read stamp, the page
 * coverage at this version, and the full-content baseline once the task has seen every line
 * unaltered (`guard`: Hermes 0.20.6 and later; before, only the stamp).
 */
export async function noteRead(task: TaskFileState, page: ReadPage, guard: boolean, clock: () => number): Promise<void> {
  const now = await fileStat(page.real);
  if (!now || !seenIs(page.seen, now)) return; // changed since it was read: nothing is known of it
  if (!guard) {
    // Before 0.20.6 a read is partial when it started past line 1 or was truncated (0.19 read_file_tool).
    task.stamps.set(page.real, { mtimeNs: now.mtimeNs, at: clock(), partial: !page.whole });
    return;
  }
  let complete = false;
  let altered = page.altered;
  const known = task.baselines.get(page.real);
  if (known && sameStat(known, now)) complete = true; // a narrower view does not undo knowledge of these bytes
  else if (page.whole) complete = !altered;
  else {
    let cov = task.coverage.get(page.real);
    if (!cov || !sameStat(cov.stat, now) || cov.ranges.length > COVERAGE_RANGES_CAP) cov = { stat: now, ranges: [], redacted: false };
    cov.redacted ||= altered;
    const merged: Array<[number, number]> = [];
    for (const [s, e] of [...cov.ranges, [page.start, page.end] as [number, number]].sort((x, y) => x[0] - y[0])) {
      const last = merged[merged.length - 1];
      if (last && s <= last[1] + 1) last[1] = Math.max(last[1], e);
      else merged.push([s, e]);
    }
    cov.ranges = merged;
    task.coverage.set(page.real, cov);
    altered = cov.redacted;
    complete = !altered && page.totalLines > 0 && merged[0]![0] <= 1 && merged[0]![1] >= page.totalLines;
  }
  if (complete && !(known && sameStat(known, now))) {
    const version = await fileVersion(page.real);
    complete = version !== null && sameStat(version, now);
    if (complete) {
      task.baselines.set(page.real, version!);
      task.blindPatches.delete(page.real);
    }
  }
  if (!complete) task.baselines.delete(page.real);
  task.stamps.set(page.real, { mtimeNs: now.mtimeNs, at: clock(), partial: !complete });
}
