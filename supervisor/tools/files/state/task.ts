import { createHash } from 'node:crypto';
import { type BigIntStats, constants as fsConstants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';


// One task's records of files (state/index.ts says what they serve), and a file's identity as
// Hermes' per-task file state compares it (tools/file_state.py): its stat fields
// (`_file_metadata`) and, for a version, the sha256 of its bytes (`_file_version`).

const HASH_CHUNK = 1024 * 1024;

/** A file as Hermes' `_file_version` identifies it: stat fields and the sha256 of its bytes. */
export interface FileVersion {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  sha256: string;
}

/** A file's stat fields as Hermes' `_file_metadata` gives them. */
export type StatKey = Omit<FileVersion, 'sha256'>;

export function statKey(st: BigIntStats): StatKey {
  return { dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs };
}

export function sameStat(a: StatKey, b: StatKey): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

export function sameVersion(a: FileVersion | undefined, b: FileVersion | undefined): boolean {
  return a !== undefined && b !== undefined && sameStat(a, b) && a.sha256 === b.sha256;
}

/** The sha256 of `bytes`, hex (what Hermes' `_content_sha256` holds). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Hermes `_file_metadata`: the stat fields of a path, or null. */
export async function fileStat(real: string): Promise<StatKey | null> {
  try {
    return statKey(await stat(real, { bigint: true }));
  } catch {
    return null;
  }
}

/**
 * Hermes `_file_version`: a regular file's stat fields and the sha256 of its bytes, taken so that
 * the stat before and after hashing agree (else null: the file is changing).
 */
export async function fileVersion(real: string): Promise<FileVersion | null> {
  let handle;
  try {
    handle = await open(real, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    const before = await handle.stat({ bigint: true });
    if (!before.isFile()) return null;
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(HASH_CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, HASH_CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
    const after = await fileStat(real);
    const key = statKey(before);
    if (!after || !sameStat(key, after)) return null;
    return { ...key, sha256: hash.digest('hex') };
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Milliseconds as a (non-bigint) Stats gives them, compared with nanoseconds to within ten
 * microseconds: a double holds today's times in milliseconds to about a quarter of a microsecond.
 */
function sameMs(ms: number, ns: bigint): boolean {
  return Math.abs(ms - Number(ns / 1000n) / 1000) < 0.01;
}

/** read_file's (non-bigint) fstat of what it read is the file `st` describes now. */
export function seenIs(seen: Stats, st: StatKey): boolean {
  return BigInt(seen.dev) === st.dev && BigInt(seen.ino) === st.ino && BigInt(seen.size) === st.size && sameMs(seen.mtimeMs, st.mtimeNs) && sameMs(seen.ctimeMs, st.ctimeNs);
}

interface Dated<T> {
  value: T;
  at: number;
}

/** A Map bounded to `cap` entries (the oldest inserted go first), whose entries may expire. */
export class BoundedMap<T> {
  private readonly map = new Map<string, Dated<T>>();

  constructor(
    private readonly cap: number,
    private readonly ttlMs: number | undefined,
    private readonly now: () => number,
  ) {}

  get(key: string): T | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (this.ttlMs !== undefined && this.now() - e.at > this.ttlMs) {
      this.map.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: T): void {
    this.map.delete(key);
    this.map.set(key, { value, at: this.now() });
    while (this.map.size > this.cap) this.map.delete(this.map.keys().next().value!);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  /** Deletes every entry whose key `drop` selects. */
  deleteWhere(drop: (key: string) => boolean): void {
    for (const key of [...this.map.keys()]) if (drop(key)) this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}

export interface Coverage {
  stat: StatKey;
  ranges: Array<[number, number]>;
  redacted: boolean;
}

export interface ReadStamp {
  mtimeNs: bigint;
  at: number;
  partial: boolean;
}

/** One task's knowledge of files (Hermes' `_read_tracker[task_id]` and its FileStateRegistry read stamps). */
export class TaskFileState {
  readonly baselines: BoundedMap<FileVersion>;
  readonly coverage: BoundedMap<Coverage>;
  readonly blindPatches: BoundedMap<string>;
  readonly stamps: BoundedMap<ReadStamp>;
  /** Hermes `dedup`: per read region (regionKey), the file as that read found it. */
  readonly dedup: BoundedMap<StatKey>;
  /** Hermes `dedup_hits`: per read region, the "unchanged" stubs it got since its last real read. */
  readonly dedupHits: BoundedMap<number>;
  /** Hermes `read_timestamps`: per real path, its mtime when this task last read or edited it (the per-task staleness warning). */
  readonly readTimes: BoundedMap<bigint>;
  /** Hermes `last_key`: the last read (or search) of this task, until another tool call. */
  lastRead: string | null = null;
  /** Hermes `consecutive`: how many times in a row `lastRead` was read. */
  consecutive = 0;

  constructor(
    /** The owner key this state belongs to (an owner id, or `ledger:<credential>`). */
    readonly key: string,
    maxPaths: number,
    ttlMs: number | undefined,
    now: () => number,
  ) {
    this.baselines = new BoundedMap(maxPaths, ttlMs, now);
    this.coverage = new BoundedMap(maxPaths, ttlMs, now);
    this.blindPatches = new BoundedMap(maxPaths, ttlMs, now);
    this.stamps = new BoundedMap(maxPaths, ttlMs, now);
    this.dedup = new BoundedMap(maxPaths, ttlMs, now);
    this.dedupHits = new BoundedMap(maxPaths, ttlMs, now);
    this.readTimes = new BoundedMap(maxPaths, ttlMs, now);
  }
}

/** A read region as Hermes keys its de-duplication: (resolved path, offset, limit). */
export function regionKey(real: string, offset: number, limit: number): string {
  return `${real}\0${offset}\0${limit}`;
}

/** How read_file's de-duplication sees a file, as the Hermes followed does (release.ts readFileDedupByVersion). */
export interface ReadLoopRules {
  /** Later releases: device, inode, size, mtime and ctime (`_file_metadata`); 0.19: the mtime only. */
  byVersion: boolean;
  /** 0.19: a failed read (an error, binary content) counts as a read; later releases leave it out. */
  failedReadsCounted: boolean;
}

/** What read_file answers instead of a read (Hermes `_dedup_stub_or_block`): the stub, or BLOCKED after this many calls. */
export type RepeatedRead = { kind: 'unchanged' } | { kind: 'blocked'; times: number };

/** Hermes' repeated-read thresholds (read_file_tool): a warning on the 3rd identical read in a row, BLOCKED from the 4th; BLOCKED from the 2nd stub. */
export const READ_WARN_AT = 3;

export const READ_BLOCK_AT = 4;

export const STUB_BLOCK_AT = 2;

/** One read_file page as it was served (before the pipeline's redaction). */
export interface ReadPage {
  /** The real path read. */
  real: string;
  /** First and last line shown (1-based, inclusive). */
  start: number;
  end: number;
  /** The file's line count as read_file reported it. */
  totalLines: number;
  /** Whether the page was all of the file (offset 1, nothing truncated). */
  whole: boolean;
  /** Whether the page was changed on its way out: a secret redacted, a line cut at its length cap. */
  altered: boolean;
  /** The stat read_file took of what it read (fstat of its descriptor). */
  seen: Stats;
}
