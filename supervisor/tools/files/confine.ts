import { realpath } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { insideAnyRoot, isInside, realRoots, type FileAccess } from '../../platform/roots.js';
import type { CallContext } from '../../core/tool-types.js';
import { realpathOnLocalFs } from './local-fs.js';
import { cwdOf, expandTilde, realResolve, realResolveMissing, resolveUserPath, type PathDeps, type UserPath } from './paths.js';

// Where the file tools may reach. By default (`HERMES_MCP_FILE_ACCESS=roots`) every path a file tool
// touches — the `path` argument, every V4A header path, the search root — must really lead inside
// one of `HERMES_MCP_ROOTS`, as with any filesystem MCP server: the real path of every existing
// component (every symlink followed, a dangling one to where it would point, the parent for a file
// still to be created) is checked against the real roots before anything is read or written, and
// that same real path is what the tool then opens. Relative paths resolve against the owner's
// terminal cwd only while that cwd is itself inside a root: after a `cd` out of the roots, a
// relative path is refused rather than silently re-anchored somewhere the caller did not mean.
// `hermes` keeps Hermes' unconfined semantics. Hermes' own deny lists (sensitive-paths.ts) apply in
// both modes, after this check. This is a guard rail for the file tools, not a sandbox: the terminal
// and execute_code's Python are not confined (neither is a jail).


/** A caller's path, resolved for use: the real path is the one that was checked and is opened. */
interface ToolPath extends UserPath {
  /** realResolve(absolute): every existing symlink followed. */
  real: string;
}

/** Linux PATH_MAX (4096, the terminating NUL included) and NAME_MAX: longer names fail with ENAMETOOLONG. */
const PATH_MAX_BYTES = 4095;
const NAME_MAX_BYTES = 255;

function shown(p: string): string {
  return p.length <= 120 ? p : `${p.slice(0, 120)}…`;
}

function invalidPath(input: string, why: string): GatewayError {
  return new GatewayError(ErrorCode.INVALID_PATH, `Invalid path ${JSON.stringify(shown(input))}: ${why}`);
}

/** A NUL byte or a name the kernel would refuse is bad input, refused before any file system call. */
function assertValidPath(input: string, absolute?: string): void {
  if (input.includes('\0')) throw invalidPath(input, 'it contains a NUL byte.');
  const p = absolute ?? input;
  const bytes = Buffer.byteLength(p);
  if (bytes > PATH_MAX_BYTES) throw invalidPath(input, `it is ${bytes} bytes long, over the ${PATH_MAX_BYTES}-byte limit (PATH_MAX).`);
  const longest = p.split(sep).reduce((max, part) => Math.max(max, Buffer.byteLength(part)), 0);
  if (longest > NAME_MAX_BYTES) throw invalidPath(input, `a component is ${longest} bytes long, over the ${NAME_MAX_BYTES}-byte limit (NAME_MAX).`);
}

function rootsSetting(access: FileAccess): string {
  return `HERMES_MCP_ROOTS=${access.roots.join(':')}`;
}

function outsideRoots(input: string, access: FileAccess, viaLink: boolean): GatewayError {
  return new GatewayError(
    ErrorCode.PATH_OUTSIDE_ROOTS,
    `'${input}' is outside the allowed roots (${rootsSetting(access)})${viaLink ? ': a symlink on the way leads out of them' : ''}. ` +
      'The file tools only reach files inside these roots; use a path under one of them.',
    { path: input, roots: [...access.roots] },
  );
}

function cwdOutsideRoots(input: string, cwd: string, access: FileAccess): GatewayError {
  return new GatewayError(
    ErrorCode.PATH_OUTSIDE_ROOTS,
    `Relative path '${input}' was not resolved: the current directory (${cwd}) is outside the allowed roots (${rootsSetting(access)}), ` +
      'and relative paths only resolve against a current directory inside them. Use an absolute path under a root, or cd back into one.',
    { path: input, cwd, roots: [...access.roots] },
  );
}

/**
 * Where a file tool looked for a path it did not find, appended to Hermes' own "not found" text:
 * ` (looked for /abs/path; project roots: /a, /b)`. The absolute path is left out when the message
 * already names it (`shownPath`), the roots when the tools are not confined to them (`hermes` mode).
 */
export function whereLooked(access: FileAccess, absolute: string, shownPath: string): string {
  const parts = [
    ...(absolute === shownPath ? [] : [`looked for ${absolute}`]),
    ...(access.mode === 'roots' ? [`project roots: ${access.roots.join(', ')}`] : []),
  ];
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/**
 * The caller's `input` as a file tool may use it: validated (INVALID_PATH), `~` expanded, made
 * absolute against the owner's cwd, real-resolved and — in `roots` mode — confined
 * (PATH_OUTSIDE_ROOTS). Call it immediately before the operation and use `real` for the I/O.
 */
export async function resolveToolPath(deps: PathDeps, input: string, ctx: CallContext | undefined): Promise<ToolPath> {
  assertValidPath(input);
  const cwd = cwdOf(deps, ctx);
  const target = resolveUserPath(input, cwd);
  assertValidPath(input, target.absolute);
  if (deps.access.mode === 'hermes') return { ...target, real: await realResolve(target.absolute) };

  // Resolved at most once per call, and only when a check below needs the real roots.
  let rootsResolved: Promise<string[]> | undefined;
  const roots = () => (rootsResolved ??= realRoots(deps.access.roots));
  // Both resolutions only read (neither throws): side by side, one round trip.
  const [cwdChecked, checked] = await Promise.all([
    isAbsolute(expandTilde(input)) ? undefined : againstRoots(cwd, deps.access, roots),
    againstRoots(target.absolute, deps.access, roots),
  ]);
  if (cwdChecked && !cwdChecked.inside) throw cwdOutsideRoots(input, cwd, deps.access);
  if (!checked.inside) {
    const lexicallyInside = deps.access.roots.some((r) => isInside(target.absolute, r)) || (await roots()).some((r) => isInside(target.absolute, r));
    throw outsideRoots(input, deps.access, lexicallyInside);
  }
  return { ...target, real: checked.real };
}

/**
 * realResolve(p), and whether that real path is inside one of the roots. The real roots are asked
 * for only when the answer needs them: a path that exists and whose real path is under a root as
 * configured is inside that root's real path, since a real path has no symlink in any component
 * (its prefix that spells the root is the root's own real path, and the root exists). A path that
 * does not exist (its real path may run through a root that does not), or whose real path is not
 * under a configured root as spelled (a root reached through a symlink), is judged against the
 * real roots, as every path was before.
 */
async function againstRoots(p: string, access: FileAccess, roots: () => Promise<string[]>): Promise<{ real: string; inside: boolean }> {
  const existing = realpathOnLocalFs(p) ?? (await realpath(p).catch(() => undefined));
  if (existing !== undefined && insideAnyRoot(existing, access.roots)) return { real: existing, inside: true };
  const [real, realRootList] = await Promise.all([existing ?? realResolveMissing(p), roots()]);
  return { real, inside: insideAnyRoot(real, realRootList) };
}

/** /readyz `file_access`: the mode, and in `roots` mode the roots it confines to. */
export function fileAccessFacts(access: FileAccess): Record<string, unknown> {
  return access.mode === 'roots' ? { mode: access.mode, roots: [...access.roots] } : { mode: access.mode };
}
