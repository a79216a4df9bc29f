import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, rename, rmdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

// How write_file, patch and V4A put bytes on disk: parent directories created (and removed again on
// rollback), atomic replacement, and per-path locks.

/** mkdir -p that reports the directories it created (deepest last), for rollback. */
export async function ensureParentDirs(absolutePath: string): Promise<string[]> {
  const parent = dirname(absolutePath);
  const first = await mkdir(parent, { recursive: true });
  if (first === undefined) return [];
  const created: string[] = [];
  for (let d = parent; ; d = dirname(d)) {
    created.unshift(d);
    if (d === first || dirname(d) === d) break;
  }
  return created;
}

export async function removeCreatedDirs(created: readonly string[]): Promise<void> {
  for (const d of [...created].reverse()) await rmdir(d).catch(() => undefined);
}

/**
 * Atomic replace: a temp file in the target's own directory (same file system), fsync, rename over
 * the target, fsync the directory. An existing target keeps its permission bits (`mode`); a new
 * file gets the process umask's default. The temp file never outlives a failure.
 */
export async function atomicWrite(target: string, data: Uint8Array, mode?: number): Promise<void> {
  const dir = dirname(target);
  const tmp = join(dir, `.hermes-tmp.${randomBytes(8).toString('hex')}`);
  const handle = await open(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0), 0o666);
  try {
    try {
      await handle.writeFile(data);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  try {
    const dh = await open(dir, fsConstants.O_RDONLY);
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    // best effort: some file systems refuse fsync on directories
  }
}

// Per-path locks (Hermes `file_state.lock_path`): concurrent writers to one file are serialised
// within this process (paths are the keys of the shared keyed lock).
export { withKeyedLocks as withPathLocks } from '../../../../shared/keyed-lock.js';
