import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { insideAnyRoot, isInside, realRoots, type FileAccess } from '../../../platform/roots.js';
import type { CallContext } from '../../../core/tool-types.js';
import { realpathOnLocalFs, realResolve, realResolveMissing } from './real-path.js';
import { checkedPath, hermesDirs, isBlockedDevice, readBlockMessage, readVerdict, type CheckedPath, type HermesDirs, type ReadVerdict } from './rules.js';

// Where the file tools may reach. By default (`HERMES_MCP_FILE_ACCESS=roots`) every path a file tool
// touches — the `path` argument, every V4A header path, the search root — must really lead inside
// one of `HERMES_MCP_ROOTS`, as with any filesystem MCP server: the real path of every existing
// component (every symlink followed, a dangling one to where it would point, the parent for a file
// still to be created) is checked against the real roots before anything is read or written, and
// that same real path is what the tool then opens. Relative paths resolve against the owner's
// terminal cwd only while that cwd is itself inside a root: after a `cd` out of the roots, a
// relative path is refused rather than silently re-anchored somewhere the caller did not mean.
// `hermes` keeps Hermes' unconfined semantics. Hermes' own deny lists (rules.ts) apply in
// both modes, after this check. This is a guard rail for the file tools, not a sandbox: the terminal
// and execute_code's Python are not confined (neither is a jail).


/** What the tools need from their host: where Hermes lives, each owner's terminal cwd, where files may be reached. */
export interface PathDeps {
  hermesHome: string;
  cwdFor(ownerId: string): string;
  /** The roots confinement (`HERMES_MCP_FILE_ACCESS`, `HERMES_MCP_ROOTS`). */
  access: FileAccess;
  /** Where the lint step looks for a linter, as upstream's `command -v` would: PATH at start-up (`helperSearchPath`). */
  searchPath?: string;
  /** The configured authentication files' spellings (rules.ts authFileSpellings): never read or written by a tool. */
  authFiles?: ReadonlySet<string>;
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

/** The required `path` argument, a non-empty string (the schema says so, but handlers are also called directly). */
export function requirePath(args: Record<string, unknown>, tool: string): string {
  const v = args.path;
  if (typeof v !== 'string' || v === '') {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `${tool}: missing required field 'path'.`);
  }
  return v;
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

/** A caller's path, resolved for use: the real path is the one that was checked and is opened. */
export interface ToolPath extends UserPath {
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
async function resolveToolPath(deps: PathDeps, input: string, ctx: CallContext | undefined): Promise<ToolPath> {
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
 * real roots.
 */
async function againstRoots(p: string, access: FileAccess, roots: () => Promise<string[]>): Promise<{ real: string; inside: boolean }> {
  const existing = realpathOnLocalFs(p) ?? (await realpath(p).catch(() => undefined));
  if (existing !== undefined && insideAnyRoot(existing, access.roots)) return { real: existing, inside: true };
  const [real, realRootList] = await Promise.all([existing ?? realResolveMissing(p), roots()]);
  return { real, inside: insideAnyRoot(real, realRootList) };
}

const NO_AUTH_FILES: ReadonlySet<string> = new Set();

/** A path a file tool reached: the caller's spellings, the real path (the one opened), both spellings the rules judge. */
export interface Reached extends ToolPath {
  checked: CheckedPath;
}

/** What read_file needs to know of a path: whether it is a blocked device, Hermes' read verdict and whether it is secret-bearing. */
export interface ReadAccess extends Reached {
  device: boolean;
  verdict: ReadVerdict;
}

/** search_files' root: whether it is a blocked device, the Hermes directories the walk judges every file by, Hermes' read-deny message. */
export interface SearchAccess extends Reached {
  device: boolean;
  dirs: HermesDirs;
  blocked: string | null;
}

/** A path to write: the Hermes directories the write rules (write/blocks.ts) judge it by. */
export interface WriteAccess extends ToolPath {
  dirs: HermesDirs;
}

/**
 * The one way a file tool reaches a path: `input` validated, resolved against the owner's cwd,
 * real-resolved and confined (resolveToolPath), then judged for what the tool is about to do. The
 * facts are returned, never thrown: each tool refuses in the order Hermes checks.
 */
export async function resolveAccess(deps: PathDeps, input: string, ctx: CallContext | undefined, mode: 'read'): Promise<ReadAccess>;
export async function resolveAccess(deps: PathDeps, input: string, ctx: CallContext | undefined, mode: 'search'): Promise<SearchAccess>;
export async function resolveAccess(deps: PathDeps, input: string, ctx: CallContext | undefined, mode: 'write'): Promise<WriteAccess>;
export async function resolveAccess(deps: PathDeps, input: string, ctx: CallContext | undefined, mode: 'read' | 'search' | 'write'): Promise<ReadAccess | SearchAccess | WriteAccess> {
  const target = await resolveToolPath(deps, input, ctx);
  const authFiles = deps.authFiles ?? NO_AUTH_FILES;
  if (mode === 'write') return { ...target, dirs: await hermesDirs(deps.hermesHome, authFiles) };
  const checked = await checkedPath(target);
  const device = await isBlockedDevice(checked);
  if (mode === 'read') return { ...target, checked, device, verdict: await readVerdict(checked, input, deps.hermesHome, authFiles) };
  const dirs = await hermesDirs(deps.hermesHome, authFiles);
  return { ...target, checked, device, dirs, blocked: readBlockMessage(checked, input, dirs) };
}

/** /readyz `file_access`: the mode, and in `roots` mode the roots it confines to. */
export function fileAccessFacts(access: FileAccess): Record<string, unknown> {
  return access.mode === 'roots' ? { mode: access.mode, roots: [...access.roots] } : { mode: access.mode };
}

export { isUnder, onLocalFileSystem } from './real-path.js';
export { authFiles, authFileSpellings, checkedPath, deviceError, either, isBlockedDevicePath, isSecretBearingFile, NOT_A_BOUNDARY, readBlockError, readBlockMessage } from './rules.js';
export type { AuthFilePaths, CheckedPath, HermesDirs, ReadVerdict } from './rules.js';
