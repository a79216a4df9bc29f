import { lstat, readlink, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { CallContext } from '../../core/tool-types.js';
import type { FileAccess } from '../../platform/roots.js';
import { realpathOnLocalFs } from './local-fs.js';

// Path handling shared by the four file tools: `~` expansion, resolution against the owner's
// terminal cwd, and Python-`Path.resolve()`-like real paths for the safety checks.

/** What the tools need from their host: where Hermes lives, each owner's terminal cwd, where files may be reached. */
export interface PathDeps {
  hermesHome: string;
  cwdFor(ownerId: string): string;
  /** The roots confinement (confine.ts). */
  access: FileAccess;
  /** Where the lint step looks for a linter, as upstream's `command -v` would: PATH at start-up (`helperSearchPath`). */
  searchPath?: string;
}

export interface UserPath {
  /** The argument exactly as the caller sent it (used in messages, like Hermes). */
  input: string;
  /** `~` expanded; still relative when the input was. */
  expanded: string;
  /** Absolute, lexically normalised (`..` folded, symlinks NOT followed). */
  absolute: string;
}

/** Hermes `_expand_tilde`: `~` and `~/…` use the service user's home; `~user` is left alone. */
export function expandTilde(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return p;
}

export function cwdOf(deps: PathDeps, ctx: CallContext | undefined): string {
  const cwd = deps.cwdFor(ctx?.owner?.id ?? '');
  return isAbsolute(cwd) ? cwd : resolve(cwd);
}

export function resolveUserPath(input: string, cwd: string): UserPath {
  const expanded = expandTilde(input);
  const absolute = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
  return { input, expanded, absolute };
}

/** A required, non-empty string argument (the schema says so, but handlers are also called directly). */
export function requireString(args: Record<string, unknown>, name: string, tool: string): string {
  const v = args[name];
  if (typeof v !== 'string' || v === '') {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `${tool}: missing required field '${name}'.`);
  }
  return v;
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

export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new GatewayError(ErrorCode.CANCELLED, `${what} cancelled`);
}
