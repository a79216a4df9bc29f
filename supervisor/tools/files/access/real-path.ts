import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';

// Whether a real path lies on a local disk or memory file system, by the mount table
// (/proc/self/mountinfo): read_file does the open, fstat, read and close of a small file there on
// the event loop, and the file tools resolve a path whose every step stays on such mounts there, which costs a few microseconds, instead of a thread-pool round trip each (on a
// busy two-core host, each round trip cost more than the rest of the call). A network or FUSE file
// system can stall any call for as long as its server is away, so it, and anything the table does
// not name as local, keeps the thread pool. The table is read from procfs, which never waits on a
// disk or the network, and read again at most once per MOUNTS_TTL_MS: a file system mounted since
// is seen within that time.

/** File system types that live on a local block device or in memory. */
const LOCAL_TYPES = new Set(['ext2', 'ext3', 'ext4', 'xfs', 'btrfs', 'f2fs', 'zfs', 'bcachefs', 'tmpfs', 'ramfs', 'overlay', 'squashfs', 'erofs']);

const MOUNTS_FILE = '/proc/self/mountinfo';
const MOUNTS_TTL_MS = 1000;

export interface Mount {
  point: string;
  local: boolean;
}

let mounts: Mount[] = [];
let readAt = Number.NEGATIVE_INFINITY;

/** mountinfo escapes space, tab, newline and backslash in paths as three octal digits. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** The mount table's lines, in mount order: `id parent major:minor root point options [tags] - type source super`. */
export function parseMountInfo(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-', 6);
    if (dash === -1 || fields[4] === undefined || fields[dash + 1] === undefined) continue;
    out.push({ point: unescape(fields[4]), local: LOCAL_TYPES.has(fields[dash + 1]!) });
  }
  return out;
}

function currentMounts(now: number): Mount[] {
  if (now - readAt < MOUNTS_TTL_MS) return mounts;
  try {
    mounts = parseMountInfo(readFileSync(MOUNTS_FILE, 'utf8'));
  } catch {
    mounts = []; // no procfs (not Linux): nothing counts as local
  }
  readAt = now;
  return mounts;
}

/**
 * The mount that holds `real` (a real path: no symlink in it, so the longest mount point that is
 * a prefix of it is where it lives; of mounts stacked on one point, the last) is a local one.
 */
export function onLocalFileSystem(real: string, table: readonly Mount[] = currentMounts(performance.now())): boolean {
  let best: Mount | undefined;
  for (const m of table) {
    const under = real === m.point || m.point === sep || real.startsWith(m.point + sep);
    if (under && (best === undefined || m.point.length >= best.point.length)) best = m;
  }
  return best?.local === true;
}

/** As realpath(3): more symbolic links than this on one path is ELOOP (left to the thread pool). */
const MAX_LINKS = 40;

/**
 * realpath(p) resolved on the event loop, one lstat (and readlink for a link) per component, for
 * as long as every directory it looks in and every name it reaches is on a local mount; undefined
 * as soon as one is not, or a component is missing or unreadable, or links loop: the caller then
 * asks the thread pool's realpath, which answers (or fails) for any mount. `p` is absolute and normalised.
 */
export function realpathOnLocalFs(p: string): string | undefined {
  const table = currentMounts(performance.now());
  let resolved: string = sep;
  if (!onLocalFileSystem(resolved, table)) return undefined;
  const pending = p.split(sep).filter(Boolean).reverse();
  let links = 0;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === '.') continue;
    if (part === '..') {
      resolved = dirname(resolved);
      continue;
    }
    const next = join(resolved, part);
    if (!onLocalFileSystem(next, table)) return undefined;
    let st;
    try {
      st = lstatSync(next, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (st === undefined) return undefined;
    if (!st.isSymbolicLink()) {
      // More to come after a non-directory (`file/..`, `file/.`) is ENOTDIR for realpath(3).
      if (pending.length > 0 && !st.isDirectory()) return undefined;
      resolved = next;
      continue;
    }
    if (++links > MAX_LINKS) return undefined;
    let target: string;
    try {
      target = readlinkSync(next);
    } catch {
      return undefined;
    }
    const pieces = target.split(sep).filter(Boolean);
    // A target with a trailing slash must lead to a directory: `.` after it makes the walk check.
    if (target.endsWith(sep) && pieces.length > 0) pieces.push('.');
    for (const piece of pieces.reverse()) pending.push(piece);
    if (isAbsolute(target)) resolved = sep;
  }
  return resolved;
}

/**
 * Python `Path(p).resolve()` (non-strict): follows every symlink that exists, including a dangling
 * final one (to where it would point), and keeps the non-existent tail as written. Never throws.
 */
export async function realResolve(p: string, depth = 0): Promise<string> {
  const inline = realpathOnLocalFs(p);
  if (inline !== undefined) return inline;
  try {
    return await realpath(p);
  } catch {
    // fall through: some component does not exist (or is a dangling link)
  }
  return realResolveMissing(p, depth);
}

/** realResolve(p) for a `p` whose realpath just failed: the existing part resolved, the rest kept as written. */
export async function realResolveMissing(p: string, depth = 0): Promise<string> {
  const parent = dirname(p);
  if (parent === p) return p;
  const realParent = await realResolve(parent, depth);
  const here = join(realParent, basename(p));
  if (depth < 40) {
    const st = await lstat(here).catch(() => null);
    if (st?.isSymbolicLink()) {
      const target = await readlink(here).catch(() => null);
      if (target !== null) return realResolve(resolve(realParent, target), depth + 1);
    }
  }
  return here;
}

/** `child` is `parent` or below it (both absolute and normalised). */
export function isUnder(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}
