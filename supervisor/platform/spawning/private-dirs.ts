import { closeSync, constants, fstatSync, lstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStartTime } from '../../../shared/proc.js';
import { parseJsonObject } from '../json-object.js';

// The private directories the gateway makes under its state directory (config.stateDir): one per
// execute_code unit (`exec-*`, its RPC socket), one per unit zygote (`zygote-*`, the unit socket and
// the staged zygote code) and one per terminal owner (`terminal-*`, the cwd/env snapshot). A normal
// stop removes them; a gateway that is killed cannot, and the next gateway to start removes them
// for it (sweepStalePrivateDirs). Two gateways of one account share the state directory, so each
// directory records who made it: the owner record `.owner` holds the making process's pid, its
// start time (/proc/<pid>/stat field 22, so a reused pid is not taken for the owner), the boot id and
// the pid namespace the pid means something in. A directory is removed only when its owner is
// gone; one without a readable record (made by an older gateway, or by a process in another pid
// namespace) only when it has been left alone for unrecordedStateDirAgeSeconds and no socket in
// it is bound by any live process.

/** The kinds of private directory, each named `<kind>-XXXXXX` (mkdtemp's six characters). */
export type PrivateDirKind = 'exec' | 'zygote' | 'terminal';
const PRIVATE_DIR_NAME = /^(?:exec|zygote|terminal)-[A-Za-z0-9]{6}$/;
/** The owner record inside each private directory. */
export const OWNER_RECORD = '.owner';
/** A record is a line of JSON; anything longer is not one of ours. */
const MAX_RECORD_BYTES = 1024;

export interface OwnerRecord {
  pid: number;
  /** /proc/<pid>/stat field 22 (clock ticks since boot); absent where /proc cannot be read. */
  start?: string;
  /** /proc/sys/kernel/random/boot_id: a start time means something within one boot only. */
  boot?: string;
  /** The pid namespace (`pid:[inode]`) the pid is a pid of. */
  pidns?: string;
}

let own: OwnerRecord | undefined;

/** This process as an owner record (read once: none of it changes while the process lives). */
export function ownOwnerRecord(): OwnerRecord {
  if (!own) {
    const start = processStartTime(process.pid);
    const boot = readTrimmed('/proc/sys/kernel/random/boot_id');
    const pidns = readLink('/proc/self/ns/pid');
    own = { pid: process.pid, ...(start ? { start } : {}), ...(boot ? { boot } : {}), ...(pidns ? { pidns } : {}) };
  }
  return own;
}

/**
 * Why `stateDir` is not a directory only this account can change, or undefined when it is (or does
 * not exist yet, or the platform has no user ids): a symbolic link, not a directory, another uid's,
 * or writable by its group or by others.
 */
export function stateDirProblem(stateDir: string): string | undefined {
  const uid = process.getuid?.();
  const root = lstatSync(stateDir, { throwIfNoEntry: false });
  if (uid === undefined || !root) return undefined;
  if (root.isSymbolicLink()) return `${stateDir} is a symbolic link`;
  if (!root.isDirectory()) return `${stateDir} is not a directory`;
  if (root.uid !== uid) return `${stateDir} belongs to uid ${root.uid}, not ${uid}`;
  if ((root.mode & 0o022) !== 0) return `${stateDir} is writable by others (mode ${(root.mode & 0o777).toString(8)})`;
  return undefined;
}

/** A fresh private directory `<kind>-XXXXXX` (0700) under `stateDir`, with this process's owner record. */
export function makePrivateDir(stateDir: string, kind: PrivateDirKind): string {
  const dir = mkdtempSync(join(stateDir, `${kind}-`)); // mkdtemp creates 0700
  try {
    writeFileSync(join(dir, OWNER_RECORD), JSON.stringify(ownOwnerRecord()) + '\n', { flag: 'wx', mode: 0o600 });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return dir;
}

/** What the sweep decided for one entry of the state directory that looked like a private directory. */
export interface SweepVerdict {
  name: string;
  removed: boolean;
  reason: string;
}

export interface SweepReport {
  /** Why nothing was looked at (the state directory is not one only this account can change). */
  skipped?: string;
  verdicts: SweepVerdict[];
}

export interface SweepOptions {
  /** How long a directory without an owner record must have been left alone (ms). */
  unrecordedMinAgeMs: number;
  /** The current time (ms since the epoch). */
  now?: number;
}

/**
 * Removes the private directories under `stateDir` whose gateway is gone. Only entries named like
 * a private directory that are directories (never followed through a symlink) owned by this uid
 * are considered, and only inside a state directory that is a real directory owned by this uid and
 * writable by no one else; anything else is left as it is. Every considered entry gets a verdict.
 */
export function sweepStalePrivateDirs(stateDir: string, options: SweepOptions): SweepReport {
  const uid = process.getuid?.();
  if (uid === undefined) return { skipped: 'no user ids on this platform', verdicts: [] };
  if (!lstatSync(stateDir, { throwIfNoEntry: false })) return { verdicts: [] };
  const problem = stateDirProblem(stateDir);
  if (problem) return { skipped: problem, verdicts: [] };

  const now = options.now ?? Date.now();
  const self = ownOwnerRecord();
  let unixSockets: Set<string> | undefined | null = null; // read once, when first needed
  const verdicts: SweepVerdict[] = [];
  for (const name of readdirSync(stateDir)) {
    if (!PRIVATE_DIR_NAME.test(name)) continue;
    const dir = join(stateDir, name);
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (!stat) continue; // removed meanwhile
    const keep = (reason: string) => verdicts.push({ name, removed: false, reason });
    if (!stat.isDirectory()) {
      keep(stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory');
      continue;
    }
    if (stat.uid !== uid) {
      keep(`belongs to uid ${stat.uid}`);
      continue;
    }
    const record = readOwnerRecord(dir);
    let gone: string | undefined;
    if (record && (record.pidns === undefined || record.pidns === self.pidns)) {
      if (record.boot !== undefined && self.boot !== undefined && record.boot !== self.boot) gone = `owner ${record.pid} ran before the last boot`;
      else {
        const start = processStartTime(record.pid);
        if (start === undefined) gone = `owner ${record.pid} is gone`;
        else if (record.start !== undefined && start !== record.start) gone = `owner ${record.pid} is gone (its pid was reused)`;
        else {
          keep(`owner ${record.pid} is alive`);
          continue;
        }
      }
    } else {
      // No record this process can judge: left alone long enough, and no live socket in it.
      const why = record ? `owner ${record.pid} is in another pid namespace` : 'no owner record';
      const touched = lastTouched(dir, stat.mtimeMs);
      if (now - touched < options.unrecordedMinAgeMs) {
        keep(`${why}; changed ${Math.round((now - touched) / 1000)} s ago`);
        continue;
      }
      if (unixSockets === null) unixSockets = boundUnixSocketPaths();
      if (unixSockets === undefined) {
        keep(`${why}; cannot tell whether its sockets are in use (/proc/net/unix unreadable)`);
        continue;
      }
      const prefix = dir + '/';
      if ([...unixSockets].some((path) => path.startsWith(prefix))) {
        keep(`${why}; a socket in it is in use`);
        continue;
      }
      gone = `${why}; unused for ${Math.round((now - touched) / 1000)} s`;
    }
    try {
      rmSync(dir, { recursive: true, force: true }); // removes symlinks inside, never what they point at
      verdicts.push({ name, removed: true, reason: gone });
    } catch (e) {
      keep(`${gone}, but it could not be removed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { verdicts };
}

/** The owner record of `dir`, or undefined when there is none this code wrote (not followed through a symlink). */
export function readOwnerRecord(dir: string): OwnerRecord | undefined {
  let fd: number;
  try {
    fd = openSync(join(dir, OWNER_RECORD), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_RECORD_BYTES) return undefined;
    const buffer = Buffer.alloc(MAX_RECORD_BYTES);
    const length = readSync(fd, buffer, 0, MAX_RECORD_BYTES, 0);
    return parseOwnerRecord(buffer.subarray(0, length).toString('utf8'));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function parseOwnerRecord(text: string): OwnerRecord | undefined {
  const value = parseJsonObject(text);
  if (!value) return undefined;
  const { pid, start, boot, pidns } = value;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid < 1) return undefined;
  for (const field of [start, boot, pidns]) if (field !== undefined && typeof field !== 'string') return undefined;
  return {
    pid,
    ...(typeof start === 'string' ? { start } : {}),
    ...(typeof boot === 'string' ? { boot } : {}),
    ...(typeof pidns === 'string' ? { pidns } : {}),
  };
}

/** The latest change of `dir` and of its own entries (not followed, not recursive), in ms. */
function lastTouched(dir: string, dirMtimeMs: number): number {
  let latest = dirMtimeMs;
  try {
    for (const name of readdirSync(dir)) {
      const stat = lstatSync(join(dir, name), { throwIfNoEntry: false });
      if (stat) latest = Math.max(latest, stat.mtimeMs);
    }
  } catch {
    // unreadable: its own mtime is all there is
  }
  return latest;
}

/**
 * The paths of every Unix socket bound in this network namespace (/proc/net/unix: a listening
 * socket, and each connection accepted on it, carry its path), or undefined when it cannot be read.
 * Reading it touches no socket: connecting to one would take a live unit's only connection.
 */
function boundUnixSocketPaths(): Set<string> | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return undefined;
  }
  const paths = new Set<string>();
  for (const line of text.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is everything after the seventh field.
    const m = /^\s*\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s(.+)$/.exec(line);
    if (m && m[1]!.startsWith('/')) paths.add(m[1]!);
  }
  return paths;
}

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
