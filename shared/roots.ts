import { realpath } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { GatewayError, ErrorCode } from './errors.js';

// The one allowed-roots check used by every tool that takes a project root or working directory.
// Both sides are resolved with realpath first, so `..`, symlinks and bind tricks are judged by
// where they really lead.

export function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
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
  for (const root of roots) {
    let realRoot: string;
    try {
      realRoot = await realpath(root);
    } catch {
      continue; // a missing root admits nothing
    }
    if (isInside(real, realRoot)) return real;
  }
  throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, `path is outside the allowed roots (HERMES_MCP_ROOTS): ${path}`);
}
