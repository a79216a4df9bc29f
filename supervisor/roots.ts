import { realpath } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { GatewayError, ErrorCode } from '../shared/errors.js';

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
  const out: string[] = [];
  for (const root of roots) {
    try {
      out.push(await realpath(root));
    } catch {
      // missing or unreadable: admits nothing
    }
  }
  return out;
}

/** `real` (already a real path) is one of `realRootList` or below it. */
export function insideAnyRoot(real: string, realRootList: readonly string[]): boolean {
  return realRootList.some((root) => isInside(real, root));
}

export async function resolveInsideRoots(path: string, roots: readonly string[]): Promise<string> {
  if (typeof path !== 'string' || !isAbsolute(path)) {
    throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, 'path must be an absolute path inside the allowed roots (HERMES_MCP_ROOTS)');
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, `path does not exist: ${path}`);
  }
  if (insideAnyRoot(real, await realRoots(roots))) return real;
  throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, `path is outside the allowed roots (HERMES_MCP_ROOTS): ${path}`);
}
