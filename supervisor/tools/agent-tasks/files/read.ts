import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { isBridgeTempFile } from '../tasks.js';

// Read-only access to one task's directory for hermes_files. A path is refused before the disk is
// touched when it is absolute or holds `..`, a backslash or NUL; then every component is lstat'ed
// from the task directory down and a symlink anywhere is refused, the final realpath must still
// be inside the task directory, and only a regular file is opened (O_NOFOLLOW | O_NONBLOCK, so a
// FIFO swapped in after the check cannot block, and fstat must show the same regular file).
// Content is returned only for UTF-8 text without NUL bytes, up to `maxBytes`.

export interface FileLimits {
  maxBytes: number;
  maxEntries: number;
}

interface Entry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  mtime: string;
}

function refuse(message: string): never {
  throw new GatewayError(ErrorCode.INVALID_PATH, message);
}

/** The path's components, or a refusal naming why it can never be a path inside the task. */
export function taskPathSegments(path: string): string[] {
  if (path.includes('\0')) refuse('the path contains a NUL byte');
  if (path.includes('\\')) refuse('the path contains a backslash; use / between components');
  if (path.startsWith('/')) refuse('the path must be relative to the task directory');
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) refuse('the path must not contain ..');
  return segments;
}

function typeOf(stat: Stats): Entry['type'] {
  return stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : stat.isSymbolicLink() ? 'symlink' : 'other';
}

export function readTaskPath(taskDir: string, id: string, path: string, limits: FileLimits): Record<string, unknown> {
  const segments = taskPathSegments(path);
  const rootStat = lstatSync(taskDir, { throwIfNoEntry: false });
  if (!rootStat?.isDirectory()) throw new GatewayError(ErrorCode.TASK_NOT_FOUND, `no task ${id}`);
  const root = realpathSync(taskDir);
  let current = root;
  let stat = rootStat;
  for (const [i, segment] of segments.entries()) {
    current = join(current, segment);
    const next = lstatSync(current, { throwIfNoEntry: false });
    if (!next) throw new GatewayError(ErrorCode.FILE_NOT_FOUND, `${path}: no such file in task ${id}`);
    if (next.isSymbolicLink()) refuse(`${segments.slice(0, i + 1).join('/')} is a symlink; symlinks are never followed`);
    if (i < segments.length - 1 && !next.isDirectory()) throw new GatewayError(ErrorCode.FILE_NOT_FOUND, `${segments.slice(0, i + 1).join('/')} is not a directory`);
    stat = next;
  }
  const real = realpathSync(current);
  if (real !== root && !real.startsWith(root + sep)) refuse(`${path} resolves outside the task directory`);
  const shown = segments.join('/');
  if (stat.isDirectory()) return listing(real, id, shown, limits.maxEntries);
  if (!stat.isFile()) throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, `${shown} is not a regular file`);
  return { id, path: shown, ...readText(real, stat, limits.maxBytes, shown) };
}

function listing(dir: string, id: string, path: string, maxEntries: number): Record<string, unknown> {
  const names = readdirSync(dir).filter((n) => !isBridgeTempFile(n)).sort();
  const entries: Entry[] = [];
  for (const name of names.slice(0, maxEntries)) {
    const s = lstatSync(join(dir, name), { throwIfNoEntry: false });
    if (s) entries.push({ name, type: typeOf(s), size: s.isFile() ? s.size : 0, mtime: s.mtime.toISOString() });
  }
  return { id, path, entries, count: entries.length, truncated: names.length > maxEntries };
}

function readText(file: string, checked: Stats, maxBytes: number, shown: string): Record<string, unknown> {
  if (checked.size > maxBytes) throw new GatewayError(ErrorCode.FILE_TOO_LARGE, `${shown} is ${checked.size} bytes; at most ${maxBytes} are returned`);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') refuse(`${shown} is a symlink; symlinks are never followed`);
    throw new GatewayError(ErrorCode.FILE_NOT_FOUND, `${shown} cannot be opened (${code ?? 'error'})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.ino !== checked.ino || stat.dev !== checked.dev) throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, `${shown} changed while it was opened`);
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) break;
    }
    if (length > maxBytes) throw new GatewayError(ErrorCode.FILE_TOO_LARGE, `${shown} grew past ${maxBytes} bytes`);
    const bytes = buffer.subarray(0, length);
    if (bytes.includes(0)) throw new GatewayError(ErrorCode.FILE_BINARY, `${shown} is binary (contains NUL bytes)`);
    let content: string;
    try {
      content = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new GatewayError(ErrorCode.FILE_BINARY, `${shown} is not valid UTF-8 text`);
    }
    return { size: length, mtime: stat.mtime.toISOString(), encoding: 'utf-8', content };
  } finally {
    closeSync(fd);
  }
}
