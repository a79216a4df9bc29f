import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { withHermesArgumentRepair } from '../../../core/hermes-args.js';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { CallContext, ToolDefinition } from '../../../core/tool-types.js';
import { assertEncodable, atomicWrite, BOM, detectLineEnding, normalizeLineEndings, readRawText, throwIfAborted, withPathLocks, writeFailed } from '../common/index.js';
import { boundaryNote, fuzzyFindAndReplace, isAlreadyApplied, noMatchHint } from './fuzzy/index.js';
import { type CheckedPath, resolveAccess, whereLooked } from '../access/index.js';
import { assertNewerWriteGuards, assertNoAddedRedactionMarker, assertWritable, CROSS_PROFILE_PROPERTY, type EditDeps, follows, gateRefusal, jsonConstantRefusal, type Lint, lintDeltaOf, lintNow, type WriteTarget } from '../write/index.js';
import { fileDiff } from './unified-diff.js';
import { applyV4a, hasTraversal, notFoundHint, operationPaths, parseV4aPatch, type ResolvedOperation } from './v4a/index.js';
import { sha256Hex } from '../state/index.js';

// patch — Hermes' targeted edit tool (tools/file_tools.py `patch_tool`):
// - mode "replace" (default): path + old_string + new_string (+ replace_all), matched through the
//   fuzzy strategy chain (fuzzy/); unique unless replace_all;
// - mode "patch": a V4A multi-file patch (v4a.ts), all-or-nothing; header paths with `..` refused.
// Every path passes the roots confinement (access/index.ts), the sensitive-path and cross-profile checks
// before anything is read, so no diff, hint or error quotes a refused file. Success is upstream's
// PatchResult.to_dict: `{success, diff?, files_modified, files_created?, files_deleted?, lint?,
// resolved_path?}` (empty fields left out; files_modified resolved to absolute paths, V4A's
// created/deleted files as its headers name them; `lint` one result in replace mode, one per
// written file in V4A mode). Failures are thrown GatewayErrors with upstream's messages; those
// upstream's PatchResult reports carry `success: false`, the argument errors do not (upstream's
// tool_error). An edit that adds a redaction marker to a file is refused (write/index.ts, v4a.ts).
//
// Following the Hermes the gateway fronts (release.ts): 0.22's stricter fuzzy chain, its texts,
// `note` and `no_change`, V4A's absolute labels and Add-must-create; a patch keeps write_file's
// baseline when it started from known bytes (state/), and carries Hermes' staleness
// `_warning`. Not done here: upstream's escalating "This is failure #N patching …" hint after
// repeated failures on one path.

/** Files larger than this are not patched in place (upstream reads up to 50 MiB through a shell). */
const PATCH_MAX_FILE_BYTES = 10 * 1024 * 1024;

function patchError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GatewayError {
  return new GatewayError(code, message, { success: false, ...extra });
}

/** Upstream's tool_error: `{error}` alone. */
function argumentError(message: string): GatewayError {
  return new GatewayError(ErrorCode.INVALID_ARGUMENTS, message);
}

/** PatchResult.to_dict: the empty fields left out. */
function patchResult(fields: { diff: string; modified: string[]; created?: string[]; deleted?: string[]; lint?: unknown }): Record<string, unknown> {
  const out: Record<string, unknown> = { success: true };
  if (fields.diff) out.diff = fields.diff;
  if (fields.created?.length) out.files_created = fields.created;
  if (fields.deleted?.length) out.files_deleted = fields.deleted;
  if (fields.lint !== undefined) out.lint = fields.lint;
  out.files_modified = fields.modified;
  if (fields.modified.length === 1) out.resolved_path = fields.modified[0];
  return out;
}

/** Hermes' patch `_warning`: each path's staleness warning (state/), joined by " | ". */
async function staleWarnings(deps: EditDeps, ctx: CallContext, paths: ReadonlyArray<{ input: string; real: string }>): Promise<string | null> {
  const out: string[] = [];
  for (const { input, real } of paths) {
    const w = await deps.fileStates?.staleWarning(ctx, real, input);
    if (w) out.push(w);
  }
  return out.length > 0 ? out.join(' | ') : null;
}

function withWarning(result: Record<string, unknown>, warning: string | null): Record<string, unknown> {
  return warning ? { ...result, _warning: warning } : result;
}

async function replaceMode(deps: EditDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const input = args.path;
  if (typeof input !== 'string' || input === '') throw argumentError('path required');
  const oldString = args.old_string;
  const newString = args.new_string;
  if (typeof oldString !== 'string' || typeof newString !== 'string') throw argumentError('old_string and new_string required');
  const replaceAll = args.replace_all === true;
  const target = await resolveAccess(deps, input, ctx, 'write');
  const checked = await assertWritable(target, target.dirs, args.cross_profile === true, 'Write', follows(deps, 'fileWritesNoCrossProfile'));
  await assertNewerWriteGuards(deps, [{ input, checked, text: true, dirs: target.dirs }]);
  assertEncodable(input, newString);

  return withPathLocks([checked.real], async () => {
    // What the task knew of the file before this patch read it (state/): a patch from known bytes keeps write_file's baseline.
    const known = (await deps.fileStates?.knownContent(ctx, [checked.real])) ?? new Map<string, string>();
    const warning = await staleWarnings(deps, ctx, [{ input, real: checked.real }]);
    let raw: Awaited<ReturnType<typeof readRawText>>;
    try {
      raw = await readRawText(target.expanded, checked.real, PATCH_MAX_FILE_BYTES);
    } catch (e) {
      // Upstream reads through `cat`: a missing file or a directory is "Failed to read file".
      if (e instanceof GatewayError && (e.code === ErrorCode.FILE_NOT_FOUND || e.code === ErrorCode.FILE_NOT_REGULAR)) {
        throw patchError(e.code, `Failed to read file: ${checked.real}${e.code === ErrorCode.FILE_NOT_FOUND ? whereLooked(deps.access, checked.real, checked.real) : ''}`);
      }
      throw e;
    }
    const stricter = follows(deps, 'patchStricterFuzzy');
    const result = fuzzyFindAndReplace(raw.content, oldString, newString, replaceAll, { stricter });
    // Hermes 0.22 `_no_match_result`: an edit that is already in the file is a success that writes nothing.
    if (!result.ok && stricter && isAlreadyApplied(raw.content, oldString, newString)) {
      return withWarning(
        {
          success: true,
          no_change: true,
          note: `File already contains the target text — the edit appears to be already applied to ${checked.real}. No write performed; do not re-send this patch.`,
          files_modified: [checked.real],
          resolved_path: checked.real,
        },
        warning,
      );
    }
    if (!result.ok) {
      const message = result.error + noMatchHint(result.error, oldString, raw.content);
      const code = { empty: ErrorCode.INVALID_ARGUMENTS, identical: ErrorCode.INVALID_ARGUMENTS, ambiguous: ErrorCode.PATCH_AMBIGUOUS, escape_drift: ErrorCode.PATCH_INVALID, no_match: ErrorCode.PATCH_NO_MATCH }[result.kind];
      throw patchError(code, message, notFoundHint(message));
    }
    // Models send bare-LF text: a CRLF file stays CRLF; a BOM is put back.
    const newContent = detectLineEnding(raw.content) === '\r\n' ? normalizeLineEndings(result.content, '\r\n') : result.content;
    assertNoAddedRedactionMarker('patch', input, raw.content, newContent);
    const refusal =
      (await gateRefusal(deps, checked.real, newContent, ctx?.signal)) ??
      (follows(deps, 'writeJsonConstants') && extname(checked.real).toLowerCase() === '.json' ? jsonConstantRefusal(checked.real, newContent, raw.content) : null);
    if (refusal) throw patchError(ErrorCode.INVALID_ARGUMENTS, `Failed to write changes: ${refusal}`);
    throwIfAborted(ctx?.signal, 'patch');
    const written = Buffer.from((raw.hadBom ? BOM : '') + newContent, 'utf8');
    try {
      await atomicWrite(checked.real, written, raw.mode);
    } catch (e) {
      throw writeFailed(input, e);
    }
    await deps.fileStates?.notePatch(ctx, known, [{ real: checked.real, readSha: sha256Hex(raw.bytes), writtenSha: sha256Hex(written) }]);
    deps.fileStates?.forgetReads(ctx, checked.real); // Hermes `_update_read_timestamp`: the next read shows the file
    const note = stricter ? boundaryNote([result.strategy]) : null;
    return withWarning(
      {
        ...patchResult({
          // Upstream labels the diff with the absolute path it patched: `a//abs/path`.
          diff: fileDiff(checked.real, raw.content, newContent),
          modified: [checked.real],
          lint: await lintDeltaOf(deps, checked.real, raw.content, newContent, ctx?.signal),
        }),
        ...(note ? { note } : {}),
      },
      warning,
    );
  });
}

async function patchMode(deps: EditDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const text = args.patch;
  if (typeof text !== 'string' || text === '') throw argumentError('patch content required');
  const { operations, error } = parseV4aPatch(text);
  if (error) throw patchError(ErrorCode.PATCH_INVALID, `Failed to parse patch: ${error}`);

  // Header paths come from patch content (more attacker-influenceable than the `path` argument).
  for (const p of operationPaths(operations)) {
    if (hasTraversal(p)) {
      throw new GatewayError(
        ErrorCode.PATCH_INVALID,
        `V4A patch header contains '..' traversal: '${p}'. Use the agent's cwd-relative path (no '..') or an absolute path in ` +
          "'*** Update File:' / '*** Add File:' / '*** Delete File:' / '*** Move File:' headers.",
      );
    }
  }
  const crossProfile = args.cross_profile === true;
  const noProfileGuard = follows(deps, 'fileWritesNoCrossProfile');
  const resolved: ResolvedOperation[] = [];
  const targets: WriteTarget[] = [];
  const writable = async (input: string, verb: string, text: boolean): Promise<CheckedPath> => {
    const target = await resolveAccess(deps, input, ctx, 'write');
    const checked = await assertWritable(target, target.dirs, crossProfile, verb, noProfileGuard);
    targets.push({ input, checked, text, dirs: target.dirs });
    return checked;
  };
  for (const op of operations) {
    const verb = op.operation === 'delete' ? 'Delete' : op.operation === 'move' ? 'Move' : 'Write';
    const src = await writable(op.filePath, verb, op.operation === 'update' || op.operation === 'add');
    const r: ResolvedOperation = { ...op, absPath: src.real };
    if (op.operation === 'move') r.absNewPath = (await writable(op.newPath!, verb, false)).real;
    resolved.push(r);
  }
  await assertNewerWriteGuards(deps, targets);
  // Hermes 0.22 rewrites the headers to the resolved paths before applying: every label is absolute.
  const absolute = follows(deps, 'patchV4aAbsoluteHeaders');
  if (absolute) for (const r of resolved) Object.assign(r, { filePath: r.absPath }, r.absNewPath ? { newPath: r.absNewPath } : {});
  const lockPaths = resolved.flatMap((r) => (r.absNewPath ? [r.absPath, r.absNewPath] : [r.absPath]));
  return withPathLocks(lockPaths, async () => {
    const known = (await deps.fileStates?.knownContent(ctx, lockPaths)) ?? new Map<string, string>();
    const warning = await staleWarnings(
      deps,
      ctx,
      targets.map((t) => ({ input: t.input, real: t.checked.real })),
    );
    const gate = (path: string, content: string) => gateRefusal(deps, path, content, ctx?.signal);
    const outcome = await applyV4a(resolved, ctx?.signal, { stricter: follows(deps, 'patchStricterFuzzy'), addMustCreate: absolute }, gate);
    await deps.fileStates?.notePatch(ctx, known, outcome.writes);
    for (const gone of outcome.removed) deps.fileStates?.forget(ctx, gone);
    for (const real of lockPaths) deps.fileStates?.forgetReads(ctx, real);
    // Upstream's lists: created/deleted as the headers name them; modified is every header's resolved
    // path (Update/Add/Delete in order, then both ends of each Move), repeats kept.
    const created = resolved.filter((r) => r.operation === 'add').map((r) => r.filePath);
    const deleted = resolved.filter((r) => r.operation === 'delete').map((r) => r.filePath);
    const modified = [...resolved.filter((r) => r.operation !== 'move').map((r) => r.absPath), ...resolved.filter((r) => r.operation === 'move').flatMap((r) => [r.absPath, r.absNewPath!])];
    // Upstream lints every updated, moved (named `src -> dst`) and added file, as it is on disk now.
    const lint: Record<string, Lint> = {};
    const linted = [
      ...resolved.filter((r) => r.operation === 'update' || (r.operation === 'move' && !absolute)).map((r) => (r.operation === 'move' ? { key: `${r.filePath} -> ${r.newPath!}`, abs: null } : { key: r.filePath, abs: r.absPath })),
      ...resolved.filter((r) => r.operation === 'add').map((r) => ({ key: r.filePath, abs: r.absPath })),
    ];
    for (const { key, abs } of linted) {
      const text = abs === null ? null : await readFile(abs, 'utf8').catch(() => null);
      lint[key] = await lintNow(deps, key, text, ctx?.signal);
    }
    const result = patchResult({ diff: outcome.diff, modified, created, deleted, lint: Object.keys(lint).length > 0 ? lint : undefined });
    return withWarning(outcome.notes.length > 0 ? { ...result, note: outcome.notes.join('\n') } : result, warning);
  });
}

export async function patch(deps: EditDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const mode = args.mode === undefined ? 'replace' : args.mode;
  if (mode === 'replace') return replaceMode(deps, args, ctx);
  if (mode === 'patch') return patchMode(deps, args, ctx);
  throw argumentError(`Unknown mode: ${String(mode)}`);
}

export function patchTool(deps: EditDeps): ToolDefinition {
  // Hermes 0.22 advertises V4A only to OpenAI-family main models (its base schema is replace-only);
  // the gateway's caller is the MCP client, ChatGPT first of all, and Hermes' handler applies V4A
  // from any model, so the V4A layer's shape is published whatever model Hermes runs (a divergence,
  // tests/fidelity/divergences/patch.yaml patch-v4a-schema-for-every-client). mode stays optional: the
  // handler defaults it to replace, as Hermes' does.
  const layered = follows(deps, 'patchReplaceOnlySchema');
  // Hermes' dispatch coercion ("true" for replace_all) before the schema.
  return withHermesArgumentRepair({
    name: 'patch',
    description:
      'Targeted find-and-replace edits in files. Use this instead of sed/awk in terminal. ' +
      "Uses fuzzy matching (9 strategies) so minor whitespace/indentation differences won't break it. Returns a unified diff.\n\n" +
      "REPLACE MODE (mode='replace', default): find a unique string and replace it. REQUIRED PARAMETERS: path, old_string, new_string (mode may be omitted).\n" +
      "PATCH MODE (mode='patch'): apply V4A multi-file patches for bulk changes, all-or-nothing. REQUIRED PARAMETERS: mode, patch.",
    inputSchema: {
      type: 'object',
      properties: {
        mode: {
          type: 'string',
          enum: ['replace', 'patch'],
          default: 'replace',
          description: "Edit mode. 'replace' (default): requires path + old_string + new_string. 'patch': requires patch content only.",
        },
        path: { type: 'string', description: layered ? 'File path to edit.' : "REQUIRED when mode='replace'. File path to edit." },
        old_string: {
          type: 'string',
          description:
            (layered ? '' : "REQUIRED when mode='replace'. ") +
            'Exact text to find and replace. Must be unique in the file unless replace_all=true. Include surrounding context lines to ensure uniqueness.',
        },
        new_string: {
          type: 'string',
          description: layered
            ? "Changed replacement text; it must differ from old_string. Pass empty string '' to delete the matched text."
            : "REQUIRED when mode='replace'. Replacement text. Pass empty string '' to delete the matched text.",
        },
        replace_all: { type: 'boolean', default: false, description: 'Replace all occurrences instead of requiring a unique match (default: false)' },
        patch: {
          type: 'string',
          description:
            "REQUIRED when mode='patch'. V4A format patch content. Format:\n*** Begin Patch\n*** Update File: path/to/file\n@@ context hint @@\n context line\n-removed line\n+added line\n*** End Patch",
        },
        ...(follows(deps, 'fileWritesNoCrossProfile') ? {} : { cross_profile: CROSS_PROFILE_PROPERTY }),
      },
      // Hermes 0.22 no longer advertises cross_profile, but its handler still takes it.
      ...(follows(deps, 'fileWritesNoCrossProfile') ? { patternProperties: { '^cross_profile$': { type: 'boolean' } } } : {}),
      // mode is optional, as described (Hermes' stub defaults it to "replace"); what each mode
      // needs is checked by the handler, with Hermes' messages.
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, title: 'Patch files' },
    requiresOwner: false,
    holdsLease: true,
    async handler(args: Record<string, unknown>, ctx: CallContext) {
      return { structured: await patch(deps, args ?? {}, ctx) };
    },
  });
}

