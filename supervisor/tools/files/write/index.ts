import { accessSync, constants as fsConstants } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { delimiter, extname, join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { defaultLimits } from '../../../../shared/limits.js';
import { REDACTION_MARKER_RE } from '../../../core/result.js';
import type { CallContext, ToolDefinition } from '../../../core/tool-types.js';
import { yamlSyntaxError } from '../../../platform/yaml.js';
import { assertEncodable, atomicWrite, encodeForExisting, ensureParentDirs, follows, hasBinaryExtension, isNotFound, probeExisting, throwIfAborted, withPathLocks, writeFailed } from '../common/index.js';
import { type CheckedPath, type HermesDirs, type PathDeps, requirePath, resolveAccess } from '../access/index.js';
import { assertWritable, binaryDocumentRefusal, CROSS_PROFILE_PROPERTY, protectedInstructionConfig, protectedInstructionReason, protectedInstructionRefusal, sshConfigRefusal } from './blocks.js';
import { type FileStates, fileVersion, sha256Hex } from '../state/index.js';
import { readHermesConfig } from '../../../platform/hermes-config.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import { checkedInPython, PYTHON_CHECKED, pythonGateRefusal, pythonLint, pythonLintDelta, refineDelta, type Lint, type LintDeps } from './lint.js';

// write_file — Hermes' whole-file write (tools/file_tools.py `write_file_tool`,
// tools/file_operations.py `write_file`): sensitive and credential targets refused, the
// cross-profile soft guard (opt out with cross_profile), read_file gutter output refused as
// content, parent directories created, atomic replace (temp file in the same directory, fsync,
// rename) keeping an existing file's mode, CRLF line endings and UTF-8 BOM. A symlink target is
// written through (the link survives), after its real target passed the same checks: every write
// goes to the checked real path, and the final rename never follows a symlink.
//
// The syntax tier (`lint`) is upstream's: Python, JSON, YAML and TOML checked by the fronted Hermes'
// own linters (lint.ts; without a Hermes, Python and TOML by the system python3 and JSON and YAML
// parsed here); like upstream's fail-closed gate, a write whose JSON/YAML/TOML does not parse is
// refused before anything touches disk, and a file type upstream has no linter for reports "No
// linter for .ext files". Upstream's shell linters (.js .ts .go .rs) are not run: their lint is
// `skipped` and says so.
// One step beyond upstream: new text that adds a redaction marker the gateway itself shows in place
// of a secret (`«redacted:ghp_…»`, `«redacted-secret»`) to the file is refused, so a read → write
// round trip never stores the marker over the real secret.
//
// Following the Hermes the gateway fronts (release.ts): 0.20.6's read-before-overwrite guard
// (read-state.ts; before it, 0.19's staleness `_warning`), 0.22's `verified`, its document,
// agent-instruction, SSH-config, NaN and lone-surrogate refusals, and no cross-profile guard.
// Not done here: LSP diagnostics.

export type { Lint } from './lint.js';
/** Upstream's shell linters, by extension: the command each needs on PATH (not run by the gateway). */
const SHELL_LINTERS: Readonly<Record<string, string>> = { '.js': 'node', '.ts': 'npx', '.go': 'go', '.rs': 'rustfmt' };

/** The search path when the caller names none (the gateway's own default for PATH). */
const DEFAULT_SEARCH_PATH = '/usr/bin:/bin';
const onPathCache = new Map<string, boolean>();
/** Whether `command` is an executable file in a `searchPath` directory (upstream's `command -v`). */
function onPath(command: string, searchPath: string): boolean {
  const key = `${searchPath}\0${command}`;
  let found = onPathCache.get(key);
  if (found === undefined) {
    found = searchPath.split(delimiter).some((dir) => {
      if (dir === '') return false;
      try {
        accessSync(join(dir, command), fsConstants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    onPathCache.set(key, found);
  }
  return found;
}

/** Why `content` does not parse as the structured format of `ext` (JSON, YAML), '' when it does; null: not such a format. */
export function structuredSyntaxError(ext: string, content: string): string | null {
  if (ext === '.json') {
    // Python's json.loads refuses a str that starts with a BOM.
    if (content.startsWith('\uFEFF')) return 'JSONDecodeError: Unexpected UTF-8 BOM (decode using utf-8-sig) (line 1, column 1)';
    try {
      // Python's json.loads takes NaN, Infinity and -Infinity as numbers.
      JSON.parse(withoutJsonConstants(content).text);
      return '';
    } catch (e) {
      return `JSONDecodeError: ${(e as Error).message}`;
    }
  }
  if (ext === '.yaml' || ext === '.yml') {
    // Syntax only, like upstream's yaml.parse scan (yaml.ts loads the parser on first use).
    const error = yamlSyntaxError(content);
    return error === undefined ? '' : `YAMLError: ${error}`;
  }
  return null;
}

/** Upstream `_check_lint` on a file path (its extension) and the content it has. */
export function lintOf(path: string, content: string | null, searchPath = DEFAULT_SEARCH_PATH): Lint {
  const ext = extname(path).toLowerCase();
  const shell = SHELL_LINTERS[ext];
  // Upstream reports a linter missing from PATH as skipped; one that is there the gateway does not run.
  if (shell !== undefined && !onPath(shell, searchPath)) return { status: 'skipped', message: `${shell} not available` };
  if (shell !== undefined) return { status: 'skipped', message: `Syntax checks of ${ext} files are not run by the gateway` };
  if (PYTHON_CHECKED.has(ext)) return { status: 'skipped', message: `Syntax checks of ${ext} files are not available here` };
  if (ext !== '.json' && ext !== '.yaml' && ext !== '.yml') return { status: 'skipped', message: `No linter for ${ext} files` };
  if (content === null) return { status: 'skipped', message: `Failed to read ${path} for lint` };
  const error = structuredSyntaxError(ext, content)!;
  return error === '' ? { status: 'ok', output: '' } : { status: 'error', output: error };
}

/**
 * Upstream `_check_lint_delta`: the lint of the new content; when it fails and the old content
 * failed too, only the errors this edit introduced (or a note that they were all there before).
 */
export function lintDelta(path: string, before: string | null, after: string, searchPath = DEFAULT_SEARCH_PATH): Lint {
  return refineDelta(lintOf(path, after, searchPath), () => (before === null ? null : lintOf(path, before, searchPath)));
}

/** lintDelta, with Python and TOML checked in Python (lint.ts): what write_file and patch report. */
export async function lintDeltaOf(deps: EditDeps, path: string, before: string | null, after: string, signal?: AbortSignal): Promise<Lint> {
  if (checkedInPython(deps, extname(path).toLowerCase())) return pythonLintDelta({ ...deps, ...(signal ? { signal } : {}) }, path, before, after);
  return lintDelta(path, before, after, deps.searchPath);
}

/** lintOf, with Python and TOML checked in Python (lint.ts): a V4A patch's files as they are now. */
export async function lintNow(deps: EditDeps, path: string, content: string | null, signal?: AbortSignal): Promise<Lint> {
  if (checkedInPython(deps, extname(path).toLowerCase())) return pythonLint({ ...deps, ...(signal ? { signal } : {}) }, path, content);
  return lintOf(path, content, deps.searchPath);
}

/**
 * The fail-closed gate as the gateway runs it: JSON/YAML/TOML through Hermes' own linters where they
 * are checked in Python (lint.ts), else JSON/YAML parsed here. The refusal message, or null.
 */
export async function gateRefusal(deps: EditDeps, path: string, content: string, signal?: AbortSignal): Promise<string | null> {
  if (checkedInPython(deps, extname(path).toLowerCase())) return pythonGateRefusal({ ...deps, ...(signal ? { signal } : {}) }, path, content);
  return structuredGateRefusal(path, content);
}

function structuredGateRefusal(path: string, content: string): string | null {
  const ext = extname(path).toLowerCase();
  const error = structuredSyntaxError(ext, content);
  if (!error) return null;
  return `Refusing to write '${path}': candidate content fails ${ext} syntax validation (${error}). The file was NOT created or modified. Fix the content and retry.`;
}

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** The first redaction marker `after` holds more often than `before` (one the edit adds), or null. */
export function addedRedactionMarker(before: string, after: string): string | null {
  if (!REDACTION_MARKER_RE.test(after)) return null;
  const counts = new Map<string, number>();
  for (const m of after.matchAll(new RegExp(REDACTION_MARKER_RE.source, 'gu'))) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  for (const [marker, n] of counts) if (n > occurrences(before, marker)) return marker;
  return null;
}

/**
 * Refuses an edit that would leave `path` holding a redaction marker more often than it does now
 * (CONTENT_HAS_REDACTION_MARKER): such text was copied from a masked read, and writing it would put
 * the marker where the secret is. A file that holds marker text itself (documentation of the
 * markers) can still be edited, as long as the edit adds none.
 */
export function assertNoAddedRedactionMarker(tool: string, path: string, before: string, after: string): void {
  const marker = addedRedactionMarker(before, after);
  if (marker === null) return;
  throw new GatewayError(
    ErrorCode.CONTENT_HAS_REDACTION_MARKER,
    `${tool}: refusing to write '${path}': the new text contains ${marker}, the marker the gateway shows in place of a secret when it reads a file out. ` +
      'Writing it back would replace the real secret on disk with the marker. Edit around the secret instead: change only the lines you mean to change ' +
      "(patch with an old_string/new_string that leave the secret's line out), and never copy the marked line into new content.",
    tool === 'patch' ? { success: false } : {},
  );
}

/**
 * Hermes `_looks_like_read_file_line_numbered_content`: most non-blank lines carry a `N|` prefix
 * and the numbers run consecutively — read_file display text, not file content. A sparse literal
 * such as one `1|value` line is allowed.
 */
export function looksLikeReadFileOutput(content: string): boolean {
  const lines = content.split(/\r\n|\r|\n/).filter((l) => l.trim() !== '');
  if (lines.length < 2) return false;
  const numbered: number[] = [];
  for (const line of lines) {
    const m = /^\s*(\d+)\|/.exec(line);
    if (m) numbered.push(Number(m[1]));
  }
  if (numbered.length < 2 || numbered.length / lines.length < 0.6) return false;
  let consecutive = 0;
  for (let i = 1; i < numbered.length; i++) if (numbered[i] === numbered[i - 1]! + 1) consecutive++;
  return consecutive >= numbered.length - 1;
}

/** What write_file and patch need from their host besides paths: the Hermes they follow, the per-task file states. */
export interface EditDeps extends PathDeps, Omit<LintDeps, 'signal'> {
  /** The Hermes followed (release.ts); the newest the gateway knows when absent. */
  release?: HermesRelease;
  /** Per-task file states (read-state.ts): write_file's read-before-overwrite guard. */
  fileStates?: FileStates;
  /** The largest Hermes config.yaml read for its write guards (`hermesConfigMaxBytes`); the default limit when absent. */
  hermesConfigMaxBytes?: number;
}

export { follows } from '../common/index.js';

/**
 * Hermes 0.22's guards before a write (write_file_tool's order after the sensitive-path check):
 * binary documents, protected agent-instruction files, the SSH client config. Throws FILE_BLOCKED.
 */
/** A path an edit writes: as given, as checked, whether text is written to it, the Hermes directories it was judged by. */
export interface WriteTarget {
  input: string;
  checked: CheckedPath;
  text: boolean;
  dirs: HermesDirs;
}

export async function assertNewerWriteGuards(deps: EditDeps, targets: ReadonlyArray<WriteTarget>): Promise<void> {
  if (follows(deps, 'fileWriteDocumentGuards')) {
    for (const { input, checked, text } of targets) {
      if (!text) continue;
      const exists = (await stat(checked.real).catch(() => null))?.isFile() === true;
      const refusal = binaryDocumentRefusal(input, exists, hasBinaryExtension);
      if (refusal) throw new GatewayError(ErrorCode.FILE_BLOCKED, refusal);
    }
  }
  if (follows(deps, 'fileWriteProtectedInstructions')) {
    const { enabled, extra } = protectedInstructionConfig(readHermesConfig(deps.hermesHome, deps.hermesConfigMaxBytes ?? defaultLimits().hermesConfigMaxBytes).doc);
    const labels = enabled ? targets.map((t) => protectedInstructionReason(t.checked, t.dirs, extra)).filter((l): l is string => l !== null) : [];
    if (labels.length > 0) throw new GatewayError(ErrorCode.FILE_BLOCKED, protectedInstructionRefusal(labels));
  }
  if (follows(deps, 'fileWriteSshConfigApproval')) {
    const refusal = sshConfigRefusal(targets);
    if (refusal) throw new GatewayError(ErrorCode.FILE_BLOCKED, refusal);
  }
}

/** JSON text with NaN, Infinity and -Infinity outside strings read as 0 (as Python's json reads them, as numbers), and the first of them. */
function withoutJsonConstants(text: string): { text: string; first: string | null } {
  if (!text.includes('NaN') && !text.includes('Infinity')) return { text, first: null };
  let first: string | null = null;
  const out = text.replace(/"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)/g, (m, constant: string | undefined) => {
    if (constant === undefined) return m;
    first ??= constant;
    return '0';
  });
  return { text: out, first };
}

/** Hermes `_json_nonstandard_constant`: the first NaN/Infinity/-Infinity of otherwise valid JSON, else null. */
export function jsonNonstandardConstant(text: string): string | null {
  const { text: strict, first } = withoutJsonConstants(text.startsWith('\uFEFF') ? text.slice(1) : text);
  if (first === null) return null;
  try {
    JSON.parse(strict);
  } catch {
    return null; // unparseable text has no constant to report
  }
  return first;
}

/** Hermes `_refuse_introduced_json_constant`: a JSON write that brings in NaN/Infinity (one already there keeps being accepted). */
export function jsonConstantRefusal(path: string, content: string, before: string | null): string | null {
  const constant = jsonNonstandardConstant(content);
  if (constant === null || (before !== null && jsonNonstandardConstant(before) !== null)) return null;
  return `Refusing to write '${path}': candidate content uses ${constant}, which is not valid JSON. The file was NOT created or modified. Use null or a string instead and retry.`;
}

export async function writeFile(deps: EditDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const input = requirePath(args, 'write_file');
  if (!('content' in args) || args.content === undefined) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, "write_file: missing required field 'content'. Re-emit the tool call with both 'path' and 'content' set.");
  }
  if (typeof args.content !== 'string') {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `write_file: 'content' must be a string, got ${typeof args.content}.`);
  }
  const content = args.content;
  // Hermes 0.22 dropped the cross-profile guard; cross_profile still opts out of the sandbox-mirror one.
  const crossProfile = args.cross_profile === true;
  const newer = follows(deps, 'writeFileVerified');
  const surrogateLate = follows(deps, 'writeLoneSurrogate');
  const target = await resolveAccess(deps, input, ctx, 'write');
  const dirs = target.dirs;
  const checked = await assertWritable(target, dirs, crossProfile, 'Write', follows(deps, 'fileWritesNoCrossProfile'));
  await assertNewerWriteGuards(deps, [{ input, checked, text: true, dirs }]);
  if (looksLikeReadFileOutput(content)) {
    throw new GatewayError(
      ErrorCode.INVALID_ARGUMENTS,
      'Refusing to write internal read_file display text as file content. Strip read_file line-number prefixes or reconstruct the intended file contents before writing.',
    );
  }
  // Hermes 0.22 checks the content inside its write, after the read-before-overwrite guard.
  if (!surrogateLate) assertEncodable(input, content);

  // A symlink is written through to its (already checked) real target, like upstream `readlink -f`.
  const writePath = checked.real;

  return withPathLocks([checked.real], async () => {
    throwIfAborted(ctx?.signal, 'write_file');
    // A directory is never replaced by a file (said plainly, before the guard would call it unread).
    const present = await stat(writePath).catch((e: unknown) => (isNotFound(e) ? null : Promise.reject(e)));
    if (present && !present.isFile()) throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, `Cannot write '${input}': it exists and is not a regular file.`);
    // Hermes 0.20.6's read-before-overwrite guard: nothing below runs when it refuses.
    const blocker = await deps.fileStates?.overwriteBlocker(ctx, writePath);
    if (blocker) {
      throw new GatewayError(ErrorCode.FILE_STALE_WRITE, staleWriteMessage(input, blocker), { stale_write_blocked: true, path: input, resolved_path: writePath });
    }
    // Before 0.20.6 a stale overwrite is written, with a warning (FileStateRegistry.check_stale).
    const warning = deps.fileStates && !deps.fileStates.guard ? await deps.fileStates.staleWarning(ctx, writePath, input) : null;
    if (surrogateLate) assertEncodable(writePath, content, 'repr');
    let dirsCreated: string[];
    let bytes: Buffer;
    let before: string | null = null;
    // Hermes' own linters where they check the type (lint.ts), else JSON and YAML parsed here.
    const refusal = await gateRefusal(deps, writePath, content, ctx?.signal);
    // Upstream's WriteResult of a refused write: nothing written, no directory created.
    if (refusal) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, refusal, { bytes_written: 0, dirs_created: false, resolved_path: writePath });
    let verified: boolean | undefined;
    try {
      const existingStat = await stat(writePath).catch((e: unknown) => (isNotFound(e) ? null : Promise.reject(e)));
      if (existingStat && !existingStat.isFile()) {
        throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, `Cannot write '${input}': it exists and is not a regular file.`);
      }
      if (REDACTION_MARKER_RE.test(content)) assertNoAddedRedactionMarker('write_file', input, existingStat ? await readFile(writePath, 'utf8') : '', content);
      // Upstream reads the old text only for the formats it lints in-process (an empty file counts as none).
      if (existingStat && (structuredSyntaxError(extname(writePath).toLowerCase(), '') !== null || PYTHON_CHECKED.has(extname(writePath).toLowerCase()))) before = (await readFile(writePath, 'utf8')) || null;
      const constant = follows(deps, 'writeJsonConstants') && extname(writePath).toLowerCase() === '.json' ? jsonConstantRefusal(writePath, content, before) : null;
      if (constant) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, constant, { bytes_written: 0, dirs_created: false, resolved_path: writePath });
      dirsCreated = await ensureParentDirs(writePath);
      const existing = existingStat ? await probeExisting(writePath) : null;
      bytes = encodeForExisting(content, existing?.head ?? null);
      await atomicWrite(writePath, bytes, existing?.mode);
      // Hermes 0.22 `_verify_written_hash`: the bytes on disk are the bytes meant.
      if (newer) verified = await verifyWritten(writePath, bytes);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw writeFailed(input, e);
    }
    const sha = sha256Hex(bytes);
    await deps.fileStates?.noteWrite(ctx, writePath, sha);
    deps.fileStates?.forgetReads(ctx, writePath); // Hermes `_update_read_timestamp`: the next read shows the file
    return {
      bytes_written: bytes.length,
      dirs_created: dirsCreated.length > 0,
      ...(verified !== undefined ? { verified } : {}),
      // Upstream lints the text as written (its BOM and CRLF restored) against the old file's text.
      lint: await lintDeltaOf(deps, writePath, before, bytes.toString('utf8'), ctx?.signal),
      ...(warning ? { _warning: warning } : {}),
      resolved_path: writePath,
      files_modified: [writePath],
    };
  });
}

/** Hermes `_stale_write_refusal`'s text. */
function staleWriteMessage(input: string, reason: string): string {
  return (
    `Refusing to overwrite ${input}: ${reason} The file was NOT modified. Reload the current contents with read_file ` +
    '(every page, for a file that needs offset/limit), merge the requested change, then call write_file again. ' +
    'For small edits, prefer patch so existing unrelated changes are preserved.'
  );
}

/**
 * Hermes `_verify_written_hash`: true when the file's sha256 is that of `bytes`; a mismatch is
 * FILE_WRITE_FAILED with Hermes' text; undefined when it could not be read back.
 */
export async function verifyWritten(path: string, bytes: Uint8Array): Promise<boolean | undefined> {
  const version = await fileVersion(path);
  if (!version) return undefined;
  if (version.sha256 !== sha256Hex(bytes)) {
    throw new GatewayError(
      ErrorCode.FILE_WRITE_FAILED,
      `Post-write verification failed for ${path}: on-disk content hash differs from the intended write. The write did not persist correctly — re-read the file and retry.`,
    );
  }
  return true;
}

export function writeFileTool(deps: EditDeps): ToolDefinition {
  const readFirst = follows(deps, 'writeFileReadBeforeOverwrite');
  const verified = follows(deps, 'writeFileVerified');
  const noCrossProfile = follows(deps, 'fileWritesNoCrossProfile');
  return {
    name: 'write_file',
    description:
      'Write content to a file, completely replacing existing content. Use this instead of echo/cat heredoc in terminal. ' +
      "Creates parent directories automatically. OVERWRITES the entire file — use 'patch' for targeted edits." +
      (readFirst
        ? ' For an EXISTING file, call read_file first: write_file refuses (file untouched) when this task has no current full read/write of the file ' +
          'or the file changed on disk since; on refusal, read_file, merge, then retry.'
        : '') +
      (verified ? ' The result\'s verified:true means the on-disk content hash was confirmed — do NOT re-read the file to check the write landed.' : ''),
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: "Path to the file to write (will be created if it doesn't exist, overwritten if it does)" },
        content: { type: 'string', description: 'Complete content to write to the file' },
        ...(noCrossProfile ? {} : { cross_profile: CROSS_PROFILE_PROPERTY }),
      },
      // Hermes 0.22 no longer advertises cross_profile, but its handler still takes it.
      ...(noCrossProfile ? { patternProperties: { '^cross_profile$': { type: 'boolean' } } } : {}),
      required: ['path', 'content'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, title: 'Write a file' },
    requiresOwner: false,
    holdsLease: true,
    async handler(args: Record<string, unknown>, ctx: CallContext) {
      return { structured: await writeFile(deps, args ?? {}, ctx) };
    },
  };
}

export { CROSS_PROFILE_PROPERTY, assertWritable } from './blocks.js';
