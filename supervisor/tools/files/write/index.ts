import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { REDACTION_MARKER_RE } from '../../../core/result.js';
import type { CallContext, ToolDefinition } from '../../../core/tool-types.js';
import { assertEncodable, atomicWrite, encodeForExisting, ensureParentDirs, follows, isNotFound, probeExisting, throwIfAborted, withPathLocks, writeFailed } from '../common/index.js';
import { requirePath, resolveAccess } from '../access/index.js';
import { assertWritable, CROSS_PROFILE_PROPERTY } from './blocks.js';
import { fileVersion, sha256Hex } from '../state/index.js';
import { PYTHON_CHECKED, type Lint } from './lint.js';
import { assertNewerWriteGuards, assertNoAddedRedactionMarker, gateRefusal, jsonConstantRefusal, lintDeltaOf, structuredSyntaxError, type EditDeps } from './checks.js';

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
// (state/; before it, 0.19's staleness `_warning`), 0.22's `verified`, its document,
// agent-instruction, SSH-config, NaN and lone-surrogate refusals, and no cross-profile guard.
// Not done here: LSP diagnostics.

export { assertNewerWriteGuards, assertNoAddedRedactionMarker, gateRefusal, jsonConstantRefusal, lintDeltaOf, lintNow, type EditDeps, type WriteTarget } from './checks.js';
export type { Lint } from './lint.js';

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

export { follows } from '../common/index.js';

export async function writeFile(deps: EditDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const input = requirePath(args, 'write_file');
  const content = contentArg(args);
  // Hermes 0.22 dropped the cross-profile guard; cross_profile still opts out of the sandbox-mirror one.
  const crossProfile = args.cross_profile === true;
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
    // Hermes' own linters where they check the type (lint.ts), else JSON and YAML parsed here.
    const refusal = await gateRefusal(deps, writePath, content, ctx?.signal);
    // Upstream's WriteResult of a refused write: nothing written, no directory created.
    if (refusal) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, refusal, { bytes_written: 0, dirs_created: false, resolved_path: writePath });
    const { dirsCreated, bytes, before, verified } = await writeThrough(deps, input, writePath, content);
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

/** write_file's `content`: present, and a string. */
function contentArg(args: Record<string, unknown>): string {
  if (!('content' in args) || args.content === undefined) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, "write_file: missing required field 'content'. Re-emit the tool call with both 'path' and 'content' set.");
  }
  if (typeof args.content !== 'string') {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `write_file: 'content' must be a string, got ${typeof args.content}.`);
  }
  return args.content;
}

/** What a write put on disk: the directories it created, the bytes, the old text it linted against, whether they read back (Hermes 0.22). */
interface Written {
  dirsCreated: string[];
  bytes: Buffer;
  before: string | null;
  verified: boolean | undefined;
}

/**
 * The write itself, under the path's lock and after the guards: the last refusals that need the
 * old file (a regular file, redaction markers, JSON constants), then the atomic replace. An I/O
 * failure is FILE_WRITE_FAILED.
 */
async function writeThrough(deps: EditDeps, input: string, writePath: string, content: string): Promise<Written> {
  let before: string | null = null;
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
    const dirsCreated = await ensureParentDirs(writePath);
    const existing = existingStat ? await probeExisting(writePath) : null;
    const bytes = encodeForExisting(content, existing?.head ?? null);
    await atomicWrite(writePath, bytes, existing?.mode);
    // Hermes 0.22 `_verify_written_hash`: the bytes on disk are the bytes meant.
    if (follows(deps, 'writeFileVerified')) verified = await verifyWritten(writePath, bytes);
    return { dirsCreated, bytes, before, verified };
  } catch (e) {
    if (e instanceof GatewayError) throw e;
    throw writeFailed(input, e);
  }
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
