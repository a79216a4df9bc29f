import { constants as fsConstants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isInside } from '../../platform/roots.js';

// Bounded, non-following file reads and symlink containment for the skills tools.

// O_NONBLOCK keeps open() of a FIFO from waiting for a writer; fstat then refuses it as not a file.
const OPEN_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | (fsConstants.O_NONBLOCK ?? 0);

export class FileRefused extends Error {
  constructor(
    readonly reason: 'not_regular' | 'too_large' | 'symlink',
    readonly size?: number,
  ) {
    super(reason);
  }
}

/**
 * Reads a file without following a final symlink. `whole`: refuse (FileRefused 'too_large') when the
 * fstat size is above maxBytes, before reading; otherwise read at most maxBytes (a prefix).
 */
export async function readBounded(path: string, maxBytes: number, mode: 'whole' | 'prefix', follow = false): Promise<{ bytes: Buffer; size: number }> {
  let handle;
  try {
    handle = await open(path, follow ? fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) : OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new FileRefused('symlink');
    if (code === 'ENXIO') throw new FileRefused('not_regular');
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new FileRefused('not_regular');
    if (mode === 'whole' && st.size > maxBytes) throw new FileRefused('too_large', st.size);
    const want = Math.min(st.size, maxBytes);
    const buffer = Buffer.alloc(want);
    let offset = 0;
    while (offset < want) {
      const { bytesRead } = await handle.read(buffer, offset, want - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return { bytes: buffer.subarray(0, offset), size: st.size };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Hermes reads skill text as utf-8-sig with errors="replace". */
export function decodeLenient(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** Real path of `p` when it exists and stays inside `realRoot`; `null` otherwise. */
export async function containedReal(p: string, realRoot: string): Promise<string | null> {
  try {
    const real = await realpath(p);
    return isInside(real, realRoot) ? real : null;
  } catch {
    return null;
  }
}
