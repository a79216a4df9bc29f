import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { CallContext, ToolDefinition } from '../../tool-types.js';
import { assertEncodable, atomicWrite, BOM, detectLineEnding, normalizeLineEndings, readRawText, withPathLocks, writeFailed } from './fs-util.js';
import { fuzzyFindAndReplace, isAlreadyApplied, noMatchHint } from './fuzzy-match.js';
import { resolveToolPath } from './confine.js';
import { diffLabel, throwIfAborted, type PathDeps } from './paths.js';
import { assertWritable, hermesDirs } from './sensitive-paths.js';
import { fileDiff } from './unified-diff.js';
import { applyV4a, hasTraversal, operationPaths, parseV4aPatch, type ResolvedOperation } from './v4a.js';
import { LINT_SKIPPED } from './write-file.js';

// patch — Hermes' targeted edit tool (tools/file_tools.py `patch_tool`):
// - mode "replace" (default): path + old_string + new_string (+ replace_all), matched through the
//   fuzzy strategy chain (fuzzy-match.ts); unique unless replace_all; a re-sent edit that is already
//   in the file is a success-shaped no-op (`no_change: true`);
// - mode "patch": a V4A multi-file patch (v4a.ts), all-or-nothing; header paths with `..` refused.
// Every path passes the roots confinement (confine.ts), the sensitive-path and cross-profile checks
// before anything is read, so no diff, hint or error quotes a refused file. Success:
// `{success, diff, files_modified, files_created, files_deleted, lint, resolved_path?}` (absolute
// paths). Failures are thrown GatewayErrors whose details carry `success: false`.

/** Files larger than this are not patched in place (upstream reads up to 50 MiB through a shell). */
const PATCH_MAX_FILE_BYTES = 10 * 1024 * 1024;

const NOT_FOUND_HINT = 'old_string not found. Use read_file to verify the current content, or search_files to locate the text.';

function patchError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GatewayError {
  return new GatewayError(code, message, { success: false, ...extra });
}

async function replaceMode(deps: PathDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const input = args.path;
  if (typeof input !== 'string' || input === '') throw patchError(ErrorCode.INVALID_ARGUMENTS, "patch: mode 'replace' requires 'path'.");
  const oldString = args.old_string;
  const newString = args.new_string;
  if (typeof oldString !== 'string' || typeof newString !== 'string') {
    throw patchError(ErrorCode.INVALID_ARGUMENTS, "patch: mode 'replace' requires 'old_string' and 'new_string' (new_string may be '' to delete).");
  }
  const replaceAll = args.replace_all === true;
  const target = await resolveToolPath(deps, input, ctx);
  const checked = await assertWritable(target, await hermesDirs(deps.hermesHome), args.cross_profile === true);
  assertEncodable(input, newString);

  return withPathLocks([checked.real], async () => {
    const raw = await readRawText(target.expanded, checked.real, PATCH_MAX_FILE_BYTES);
    const result = fuzzyFindAndReplace(raw.content, oldString, newString, replaceAll);
    if (!result.ok) {
      if (isAlreadyApplied(raw.content, oldString, newString)) {
        return {
          success: true,
          no_change: true,
          note: `File already contains the target text — the edit appears to be already applied to ${input}. No write performed; do not re-send this patch.`,
          diff: '',
          files_modified: [],
          files_created: [],
          files_deleted: [],
        };
      }
      switch (result.kind) {
        case 'empty':
        case 'whitespace_only':
        case 'identical':
          throw patchError(ErrorCode.INVALID_ARGUMENTS, result.error);
        case 'ambiguous':
          throw patchError(ErrorCode.PATCH_AMBIGUOUS, result.error);
        case 'escape_drift':
        case 'rogue_indent':
          throw patchError(ErrorCode.PATCH_INVALID, result.error);
        case 'no_match': {
          const message = result.error + noMatchHint(result.error, oldString, raw.content);
          throw patchError(ErrorCode.PATCH_NO_MATCH, message, message.includes('Did you mean one of these sections?') ? {} : { _hint: NOT_FOUND_HINT });
        }
      }
    }
    // Models send bare-LF text: a CRLF file stays CRLF; a BOM is put back.
    const newContent = detectLineEnding(raw.content) === '\r\n' ? normalizeLineEndings(result.content, '\r\n') : result.content;
    throwIfAborted(ctx?.signal, 'patch');
    try {
      await atomicWrite(checked.real, Buffer.from((raw.hadBom ? BOM : '') + newContent, 'utf8'), raw.mode);
    } catch (e) {
      throw writeFailed(input, e);
    }
    return {
      success: true,
      diff: fileDiff(diffLabel(target.expanded), raw.content, newContent),
      files_modified: [checked.real],
      files_created: [],
      files_deleted: [],
      lint: { ...LINT_SKIPPED },
      resolved_path: checked.real,
    };
  });
}

async function patchMode(deps: PathDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const text = args.patch;
  if (typeof text !== 'string' || text.trim() === '') throw patchError(ErrorCode.INVALID_ARGUMENTS, "patch: mode 'patch' requires 'patch' (V4A patch content).");
  const { operations, error } = parseV4aPatch(text);
  if (error) throw patchError(ErrorCode.PATCH_INVALID, `Failed to parse patch: ${error}`);

  // Header paths come from patch content (more attacker-influenceable than the `path` argument).
  for (const p of operationPaths(operations)) {
    if (hasTraversal(p)) {
      throw patchError(
        ErrorCode.PATCH_INVALID,
        `V4A patch header contains '..' traversal: '${p}'. Use the agent's cwd-relative path (no '..') or an absolute path in ` +
          "'*** Update File:' / '*** Add File:' / '*** Delete File:' / '*** Move File:' headers.",
      );
    }
  }
  const dirs = await hermesDirs(deps.hermesHome);
  const crossProfile = args.cross_profile === true;
  const resolved: ResolvedOperation[] = [];
  for (const op of operations) {
    const verb = op.operation === 'delete' ? 'Delete' : op.operation === 'move' ? 'Move' : 'Write';
    const src = await assertWritable(await resolveToolPath(deps, op.filePath, ctx), dirs, crossProfile, verb);
    const r: ResolvedOperation = { ...op, absPath: src.real };
    if (op.operation === 'move') r.absNewPath = (await assertWritable(await resolveToolPath(deps, op.newPath!, ctx), dirs, crossProfile, verb)).real;
    resolved.push(r);
  }
  const lockPaths = resolved.flatMap((r) => (r.absNewPath ? [r.absPath, r.absNewPath] : [r.absPath]));
  const outcome = await withPathLocks(lockPaths, () => applyV4a(resolved, ctx?.signal));
  const result: Record<string, unknown> = {
    success: true,
    diff: outcome.diff,
    files_modified: outcome.filesModified,
    files_created: outcome.filesCreated,
    files_deleted: outcome.filesDeleted,
    lint: { ...LINT_SKIPPED },
  };
  if (outcome.filesModified.length === 1) result.resolved_path = outcome.filesModified[0];
  return result;
}

export async function patch(deps: PathDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const mode = args.mode === undefined ? 'replace' : args.mode;
  if (mode === 'replace') return replaceMode(deps, args, ctx);
  if (mode === 'patch') return patchMode(deps, args, ctx);
  throw patchError(ErrorCode.INVALID_ARGUMENTS, `Unknown mode: ${String(mode)} (expected 'replace' or 'patch')`);
}

export function patchTool(deps: PathDeps): ToolDefinition {
  return {
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
        path: { type: 'string', description: "REQUIRED when mode='replace'. File path to edit." },
        old_string: {
          type: 'string',
          description:
            "REQUIRED when mode='replace'. Exact text to find and replace. Must be unique in the file unless replace_all=true. Include surrounding context lines to ensure uniqueness.",
        },
        new_string: { type: 'string', description: "REQUIRED when mode='replace'. Replacement text. Pass empty string '' to delete the matched text." },
        replace_all: { type: 'boolean', default: false, description: 'Replace all occurrences instead of requiring a unique match (default: false)' },
        patch: {
          type: 'string',
          description:
            "REQUIRED when mode='patch'. V4A format patch content. Format:\n*** Begin Patch\n*** Update File: path/to/file\n@@ context hint @@\n context line\n-removed line\n+added line\n*** End Patch",
        },
        cross_profile: {
          type: 'boolean',
          default: false,
          description:
            "Opt out of the cross-profile soft guard. Defaults to false. Set true ONLY after explicit user direction to edit another Hermes profile's skills/plugins/cron/memories.",
        },
      },
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
  };
}
