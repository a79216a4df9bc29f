import { createHash } from 'node:crypto';
import { constants as fsConstants, type BigIntStats } from 'node:fs';
import { open, stat } from 'node:fs/promises';

// A file's identity as Hermes' per-task file state compares it (tools/file_state.py): its stat
// fields (`_file_metadata`) and, for a version, the sha256 of its bytes (`_file_version`).

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
