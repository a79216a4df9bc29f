import { stat } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { CallContext, ToolDefinition } from '../../tool-types.js';
import { assertEncodable, atomicWrite, encodeForExisting, ensureParentDirs, isNotFound, probeExisting, withPathLocks, writeFailed } from './fs-util.js';
import { resolveToolPath } from './confine.js';
import { requireString, throwIfAborted, type PathDeps } from './paths.js';
import { assertWritable, hermesDirs } from './sensitive-paths.js';

// write_file — Hermes' whole-file write (tools/file_tools.py `write_file_tool`,
// tools/file_operations.py `write_file`): sensitive and credential targets refused, the
// cross-profile soft guard (opt out with cross_profile), read_file gutter output refused as
// content, parent directories created, atomic replace (temp file in the same directory, fsync,
// rename) keeping an existing file's mode, CRLF line endings and UTF-8 BOM. A symlink target is
// written through (the link survives), after its real target passed the same checks: every write
// goes to the checked real path, and the final rename never follows a symlink.
//
// Not done here: the syntax/lint tier and LSP diagnostics (`lint` is always `skipped`), the
// fail-closed JSON/YAML/TOML pre-write parse, and the staleness warnings (no per-task read state).

export const LINT_SKIPPED = { status: 'skipped', message: 'Syntax checks are not run by the gateway.' } as const;

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

export async function writeFile(deps: PathDeps, args: Record<string, unknown>, ctx: CallContext): Promise<Record<string, unknown>> {
  const input = requireString(args, 'path', 'write_file');
  if (!('content' in args) || args.content === undefined) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, "write_file: missing required field 'content'. Re-emit the tool call with both 'path' and 'content' set.");
  }
  if (typeof args.content !== 'string') {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `write_file: 'content' must be a string, got ${typeof args.content}.`);
  }
  const content = args.content;
  const crossProfile = args.cross_profile === true;
  const target = await resolveToolPath(deps, input, ctx);
  const dirs = await hermesDirs(deps.hermesHome);
  const checked = await assertWritable(target, dirs, crossProfile);
  if (looksLikeReadFileOutput(content)) {
    throw new GatewayError(
      ErrorCode.INVALID_ARGUMENTS,
      'Refusing to write internal read_file display text as file content. Strip read_file line-number prefixes or reconstruct the intended file contents before writing.',
    );
  }
  assertEncodable(input, content);

  // A symlink is written through to its (already checked) real target, like upstream `readlink -f`.
  const writePath = checked.real;

  return withPathLocks([checked.real], async () => {
    throwIfAborted(ctx?.signal, 'write_file');
    let dirsCreated: string[];
    let bytes: Buffer;
    try {
      const existingStat = await stat(writePath).catch((e: unknown) => (isNotFound(e) ? null : Promise.reject(e)));
      if (existingStat && !existingStat.isFile()) {
        throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, `Cannot write '${input}': it exists and is not a regular file.`);
      }
      dirsCreated = await ensureParentDirs(writePath);
      const existing = existingStat ? await probeExisting(writePath) : null;
      bytes = encodeForExisting(content, existing?.head ?? null);
      await atomicWrite(writePath, bytes, existing?.mode);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw writeFailed(input, e);
    }
    return {
      bytes_written: bytes.length,
      dirs_created: dirsCreated.length > 0,
      lint: { ...LINT_SKIPPED },
      resolved_path: writePath,
      files_modified: [writePath],
    };
  });
}

export function writeFileTool(deps: PathDeps): ToolDefinition {
  return {
    name: 'write_file',
    description:
      'Write content to a file, completely replacing existing content. Use this instead of echo/cat heredoc in terminal. ' +
      "Creates parent directories automatically. OVERWRITES the entire file — use 'patch' for targeted edits.",
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: "Path to the file to write (will be created if it doesn't exist, overwritten if it does)" },
        content: { type: 'string', description: 'Complete content to write to the file' },
        cross_profile: {
          type: 'boolean',
          default: false,
          description:
            "Opt out of the cross-profile soft guard. Defaults to false. Set true ONLY after explicit user direction to edit another Hermes profile's skills/plugins/cron/memories.",
        },
      },
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
