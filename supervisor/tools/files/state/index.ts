import type { CallHook } from '../../../core/adapter.js';
import type { CallContext } from '../../../core/tool-types.js';
import { fileReadRedactionChanges } from '../../../core/result.js';
import { BoundedMap, fileStat, fileVersion, TaskFileState, type ReadLoopRules, type ReadPage, type RepeatedRead, type StatKey } from './task.js';
import { noteRead, noteReadLoop, repeatedRead } from './reads.js';
import { forget, knownContent, notePatch, noteWrite, overwriteBlocker, staleWarning, type FileWriters, type PatchWrite } from './writes.js';

export type { PatchWrite } from './writes.js';
export { fileVersion, READ_BLOCK_AT, READ_WARN_AT, sha256Hex } from './task.js';
export type { ReadLoopRules, ReadPage, RepeatedRead } from './task.js';

// What a task knows of the files it touched: Hermes' per-task file state (tools/file_tools_read_tracking.py
// `_read_tracker[task_id]`, and the read stamps and last writers of tools/file_state.py
// FileStateRegistry), kept per gateway owner. Hermes 0.20.6 and later (#91238) use it to refuse a
// write_file that would overwrite an existing file this task has not seen in full as it is now
// (file_tools_write_guards `_stale_overwrite_blocker`); this module keeps what that needs:
//
// - per path, a full-content baseline: the file's version (device, inode, size, mtime and ctime in
//   nanoseconds, sha256 of its bytes) when the task saw every line of it unredacted (one read_file
//   page, or pages that together reach from line 1 to the last at one version), wrote it itself,
//   or patched it starting from bytes it knew (`_mark_full_write_baseline`, `_note_read_coverage`,
//   `_carry_full_write_baselines`);
// - per path, the page coverage at one version (`read_coverage`), and the sha256 a patch wrote
//   without such a baseline (`blind_patches`, for the refusal's wording);
// - per path, a read stamp (mtime, when, whether the view was partial), and gateway-wide the last
//   writer of each path (FileStateRegistry `_reads`, `_last_writer`), for Hermes' staleness texts.
//
// Who "the task" is: Hermes passes its conversation's task_id. Here a legacy MCP session or a
// session token (`session_open`) is a durable owner and gets a state of its own, released when
// the owner ends: Hermes' rule exactly. A sessionless request (the 2026-07-28 protocol, ChatGPT)
// is a new owner on every call, so a read and the write after it would never meet; for those the
// state is kept per credential instead (Grant.credential: one static token, by its name, or one
// OAuth access token, by a digest of it; never one OAuth client's tokens together; with
// authentication off the one local principal), and what it records expires `ledgerTtlMs` after it
// was recorded (fileStateLedgerTtlSeconds). The freshness check is the same: only the exact bytes
// read may be replaced.
//
// Memory is bounded: each state holds at most `maxPaths` paths per kind of record (the oldest go
// first, as Hermes' `_evict_oldest`), at most `maxLedgers` (fileStateMaxLedgers) sessionless states
// exist (the least recently used go first), and the last-writer map holds at most 4 × `maxPaths`
// paths.
//
// Hermes' read-loop bookkeeping and the read coverage that makes a baseline are state/reads.ts's.

/** Hermes' `_MAX_GLOBAL_WRITERS` relative to its per-agent caps: the last-writer map is this many times `maxPaths`. */
const LAST_WRITERS_FACTOR = 4;

export interface FileStatesOptions {
  /** Whether file state is kept at all: HERMES_DISABLE_FILE_STATE_GUARD is not 1 (Hermes' FileStateRegistry is a no-op then). */
  enabled: boolean;
  /** Whether write_file refuses stale or unseen overwrites (Hermes 0.20.6 and later); before, staleness is only warned about. */
  guard: boolean;
  /** The most paths one task's state keeps per kind of record (`fileStatePathsPerOwner`). */
  maxPaths: number;
  /** How long a sessionless credential's records last (`fileStateLedgerTtlSeconds`). */
  ledgerTtlMs: number;
  /** The most sessionless credentials kept at once (`fileStateMaxLedgers`). */
  maxLedgers: number;
  now?: () => number;
}

/** The gateway's per-task file states and its last-writer map (Hermes' `_read_tracker` and FileStateRegistry). */
export class FileStates {
  readonly guard: boolean;
  readonly enabled: boolean;
  private readonly owners = new Map<string, TaskFileState>();
  private readonly ledgers = new Map<string, TaskFileState>();
  private readonly now: () => number;
  /** What the edits' bookkeeping (writes.ts) shares across tasks. */
  private readonly writers: FileWriters;

  constructor(private readonly options: FileStatesOptions) {
    this.enabled = options.enabled;
    this.guard = options.enabled && options.guard;
    this.now = options.now ?? Date.now;
    this.writers = { enabled: this.enabled, guard: this.guard, now: this.now, lastWriter: new BoundedMap(options.maxPaths * LAST_WRITERS_FACTOR, undefined, this.now) };
  }

  /** The state of the task a call belongs to (created on first use). */
  task(ctx: Pick<CallContext, 'owner' | 'grant'>): TaskFileState {
    if (ctx.owner.kind !== 'request') {
      let s = this.owners.get(ctx.owner.id);
      if (!s) this.owners.set(ctx.owner.id, (s = new TaskFileState(ctx.owner.id, this.options.maxPaths, undefined, this.now)));
      return s;
    }
    const key = `ledger:${ctx.grant ? ctx.grant.credential : 'local'}`;
    let s = this.ledgers.get(key);
    if (s) this.ledgers.delete(key);
    else s = new TaskFileState(key, this.options.maxPaths, this.options.ledgerTtlMs, this.now);
    this.ledgers.set(key, s);
    while (this.ledgers.size > this.options.maxLedgers) this.ledgers.delete(this.ledgers.keys().next().value!);
    return s;
  }

  /** The state of a durable owner (a session or a session token), or undefined for a sessionless call; `create`: made on first use. */
  private durable(ctx: Pick<CallContext, 'owner' | 'grant'>, create: boolean): TaskFileState | undefined {
    if (ctx.owner.kind === 'request') return undefined;
    return create ? this.task(ctx) : this.owners.get(ctx.owner.id);
  }

  /**
   * Before a read (Hermes read_file_tool's dedup check): the region was read before by this task
   * and the file is as that read found it, so Hermes answers the "unchanged" stub, or BLOCKED from
   * the second stub on (`_dedup_stub_or_block`); null to read. Counts the stub.
   */
  async repeatedRead(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string, offset: number, limit: number, rules: ReadLoopRules): Promise<RepeatedRead | null> {
    return repeatedRead(this.durable(ctx, false), real, offset, limit, rules);
  }

  /** The file as it is before a read (Hermes `_file_metadata` before reading), for noteReadLoop. */
  async statBefore(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string): Promise<StatKey | null> {
    return ctx.owner.kind === 'request' ? null : fileStat(real);
  }

  /**
   * After a read Hermes counts (every real read in 0.19, a successful one later): the region's stub
   * count goes, the read counts in a row (key: the path as given, offset, limit: Hermes `read_key`),
   * and the region's de-duplication record is kept: in 0.19 whenever the file can be stat'ed (a
   * BLOCKED read too), later only for a read during which the file did not change, and not for a
   * BLOCKED one. Returns how many times in a row the region was read (0 for a sessionless call).
   */
  async noteReadLoop(ctx: Pick<CallContext, 'owner' | 'grant'>, input: string, real: string, offset: number, limit: number, before: StatKey | null, rules: ReadLoopRules): Promise<number> {
    const task = this.durable(ctx, true);
    return task ? noteReadLoop(task, input, real, offset, limit, before, rules) : 0;
  }

  /**
   * A read Hermes' read tracker counted (noteReadLoop's reads; for a sessionless call too): the
   * file's mtime now, for the per-task staleness warning (Hermes `read_timestamps`).
   */
  async noteReadTime(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string): Promise<void> {
    const now = await fileStat(real);
    if (now) this.task(ctx).readTimes.set(real, now.mtimeNs);
  }

  /**
   * A read that Hermes after 0.19 BLOCKED after reading (`_record_successful_read` with count ≥ 4):
   * it is no full view, so the task's whole-file baseline goes and its read stamp is partial.
   */
  async noteBlockedRead(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string): Promise<void> {
    if (!this.enabled) return;
    const task = this.task(ctx);
    const now = await fileStat(real);
    task.baselines.delete(real);
    if (now) task.stamps.set(real, { mtimeNs: now.mtimeNs, at: this.now(), partial: true });
  }

  /** The task edited `real` (Hermes `_invalidate_dedup_for_path`): every read region of it is forgotten. */
  forgetReads(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string): void {
    this.durable(ctx, false)?.dedup.deleteWhere((k) => k.startsWith(`${real}\0`));
  }

  /**
   * The adapter's call hook, told of every catalogued tool's call: Hermes' dispatcher resets a
   * task's repeated-read counters on every tool call but read_file and search_files (model_tools.py
   * handle_function_call → notify_other_tool_call); a search ends a run of identical reads as a read
   * of its own kind.
   */
  readonly toolCalled: CallHook = (tool, ctx) => {
    if (tool !== 'read_file') this.otherToolCall(ctx, tool === 'search_files');
  };

  /**
   * A tool call of the task other than read_file (Hermes `notify_other_tool_call`): the reads in a
   * row start again and the stub counts go. search_files is a read of its own kind for Hermes: it
   * ends a run of identical reads but leaves the stub counts (`search: true`).
   */
  otherToolCall(ctx: Pick<CallContext, 'owner' | 'grant'>, search = false): void {
    const task = this.durable(ctx, false);
    if (!task) return;
    task.lastRead = null;
    task.consecutive = 0;
    if (!search) task.dedupHits.clear();
  }

  /** An owner ended: its state goes (FileStateRegistry.forget_task; its writer claims too). */
  release(ownerId: string): void {
    this.owners.delete(ownerId);
  }

  /** How many owner and sessionless states are kept (for tests and health). */
  get size(): { owners: number; ledgers: number } {
    return { owners: this.owners.size, ledgers: this.ledgers.size };
  }

  /**
   * read_file served a page (Hermes `_record_successful_read`): the read stamp, the page coverage
   * at this version, and the full-content baseline once the task has seen every line unaltered.
   */
  async noteRead(ctx: Pick<CallContext, 'owner' | 'grant'>, page: ReadPage | undefined): Promise<void> {
    if (!this.enabled || !page) return;
    await noteRead(this.task(ctx), page, this.guard, this.now);
  }

  /**
   * read_file showed an extracted document (Hermes `_read_extracted_document`): the whole of a
   * text-authorable one (a notebook), unredacted, counts as a full read of the file; any other
   * document is never a write baseline (write_file refuses those documents anyway).
   */
  async noteDocumentRead(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string, offset: number, result: Record<string, unknown>, secretFile: boolean): Promise<void> {
    if (!this.guard || !real.toLowerCase().endsWith('.ipynb') || offset !== 1 || result.truncated === true) return;
    const content = typeof result.content === 'string' ? result.content : '';
    if (content !== '' && fileReadRedactionChanges(content, secretFile)) return;
    const version = await fileVersion(real);
    if (!version) return;
    const task = this.task(ctx);
    task.baselines.set(real, version);
    task.blindPatches.delete(real);
    task.stamps.set(real, { mtimeNs: version.mtimeNs, at: this.now(), partial: false });
  }

  /**
   * Why write_file must not replace `real` (Hermes `_stale_overwrite_blocker`, with
   * FileStateRegistry.check_stale first), or null. Call under the path's lock, before writing.
   */
  async overwriteBlocker(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string): Promise<string | null> {
    if (!this.guard) return null;
    return overwriteBlocker(this.writers, this.task(ctx), real);
  }

  /** The staleness warning an edit of `real` carries (FileStateRegistry.check_stale; Hermes' patch `_warning`, and write_file's before 0.20.6), or null. */
  staleWarning(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string, label: string): Promise<string | null> {
    return staleWarning(this.writers, this.task(ctx), real, label);
  }

  /** The task's own write_file wrote `sha256` to `real` (`_mark_full_write_baseline` + FileStateRegistry.note_write). */
  noteWrite(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string, sha256: string): Promise<void> {
    return noteWrite(this.writers, this.task(ctx), real, sha256);
  }

  /** `_known_full_content_sha256`: the sha256 of each path whose baseline still matches the disk (before a patch reads). */
  async knownContent(ctx: Pick<CallContext, 'owner' | 'grant'>, reals: readonly string[]): Promise<Map<string, string>> {
    if (!this.guard) return new Map<string, string>();
    return knownContent(this.task(ctx), reals);
  }

  /** After the task's own successful patch (`_carry_full_write_baselines`), `writes` in order. */
  notePatch(ctx: Pick<CallContext, 'owner' | 'grant'>, known: ReadonlyMap<string, string>, writes: readonly PatchWrite[]): Promise<void> {
    return notePatch(this.writers, this.task(ctx), known, writes);
  }

  /** A path this task deleted or moved away: nothing is known of what may appear there next. */
  forget(ctx: Pick<CallContext, 'owner' | 'grant'>, real: string): void {
    if (!this.guard) return;
    forget(this.task(ctx), real);
  }
}
