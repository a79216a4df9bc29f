import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { GatewayError, ErrorCode } from '../../shared/errors.js';

// The one allowed-roots check used by every tool that takes a project root, working directory or
// (by default) file path. Both sides are resolved with realpath first, so `..`, symlinks and bind
// tricks are judged by where they really lead.

/** How far the file tools reach (`HERMES_MCP_FILE_ACCESS`): the roots (default), or Hermes' whole-disk semantics. */
export const FILE_ACCESS_MODES = ['roots', 'hermes'] as const;
export type FileAccessMode = (typeof FILE_ACCESS_MODES)[number];

/** How far the file tools reach, and the roots that bounds them in `roots` mode. */
export interface FileAccess {
  mode: FileAccessMode;
  /** `HERMES_MCP_ROOTS` as configured (absolute, lexically normalised). */
  roots: readonly string[];
}

export function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/** The real paths of the roots that exist (a missing root admits nothing). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  // A missing or unreadable root admits nothing.
  const real = await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)));
  return real.filter((r): r is string => r !== undefined);
}

/** `real` (already a real path) is one of `realRootList` or below it. */
export function insideAnyRoot(real: string, realRootList: readonly string[]): boolean {
  return realRootList.some((root) => isInside(real, root));
}

export async function resolveInsideRoots(path: string, roots: readonly string[]): Promise<string> {
  if (typeof path !== 'string' || !isAbsolute(path)) {
    throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, 'path must be an absolute path inside the allowed roots (HERMES_MCP_ROOTS)');
  }
  const real = await realpath(path).catch(async (e: NodeJS.ErrnoException) => {
    if ((e.code === 'ENOENT' || e.code === 'ENOTDIR') && (await missingInsideRoots(path, roots))) {
      throw new GatewayError(ErrorCode.FILE_NOT_FOUND, `no such file or directory: ${path}`);
    }
    // Worded like the refusal below: a path outside the roots reads the same whether it exists or not.
    throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, `path is outside the allowed roots (HERMES_MCP_ROOTS): ${path}`);
  });
  if (insideAnyRoot(real, await realRoots(roots))) return real;
  throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, `path is outside the allowed roots (HERMES_MCP_ROOTS): ${path}`);
}

/**
 * A working directory argument (the terminal's and job_prepare's `workdir`) as a real path inside
 * the roots. A relative one resolves against `cwd`, the owner's current directory (where its
 * terminal's last command ended, else the terminal's starting directory), as a shell's `cd` would;
 * then, like an absolute one, its real path (symlinks followed, `..` folded) must be inside a root.
 * A refusal of a relative one also says what it resolved against.
 */
export async function resolveWorkdirInsideRoots(requested: string, cwd: string, roots: readonly string[]): Promise<string> {
  if (isAbsolute(requested)) return resolveInsideRoots(requested, roots);
  const absolute = resolve(cwd, requested);
  try {
    return await resolveInsideRoots(absolute, roots);
  } catch (e) {
    if (!(e instanceof GatewayError)) throw e;
    throw new GatewayError(e.code, `${e.message} (the relative workdir '${requested}' resolved against the session's current directory ${cwd})`, {
      workdir: requested,
      resolved_path: absolute,
      cwd,
      roots: [...roots],
    });
  }
}

/**
 * A missing `path` may be reported as missing only when it is inside the roots on both counts:
 * lexically under a root (as configured or its real path), and the nearest part of it that exists
 * really is inside one (a dangling symlink is not followed: where it leads may be outside).
 * Anything else stays PATH_OUTSIDE_ROOTS, so a missing path never tells what exists outside the
 * roots, through a symlink inside a root that leads out included.
 */
async function missingInsideRoots(path: string, roots: readonly string[]): Promise<boolean> {
  const real = await realRoots(roots);
  const lexical = resolve(path);
  if (!insideAnyRoot(lexical, [...roots, ...real])) return false;
  for (let part = lexical; ; part = dirname(part)) {
    if (await lstat(part).then(() => true, () => false)) {
      const existing = await realpath(part).catch(() => undefined);
      return existing !== undefined && insideAnyRoot(existing, real);
    }
    if (dirname(part) === part) return false;
  }
}
