import { statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../../core/tool-types.js';
import { HermesRelease } from '../../../platform/hermes/release.js';
import { deviceError, onLocalFileSystem, requirePath, resolveAccess } from '../access/index.js';
import { coerceIntegerArgs, fileExtension, hasBinaryExtension, isExtractableDocument } from '../common/index.js';
import { READ_BLOCK_AT, READ_WARN_AT } from '../state/index.js';
import { documentDeps, documentPage, readDocument } from './document.js';
import { servedPage } from './format.js';
import { READ_DEDUP_STATUS_MESSAGE, readBlocked, repeatWarning, stubBlocked } from './repeat.js';
import { description, limitDescription, READ_DEFAULT_OFFSET, READ_MAX_LIMIT, readIntegerArgs, readRules, visionServed, type ReadFileDeps, type ReadRules } from './rules.js';
import { readText } from './text.js';

// read_file — Hermes' paginated text read (tools/file_tools.py `read_file_tool`,
// tools/file_operations.py `ShellFileOperations.read_file`): `N|line` gutter, 1-indexed offset,
// limit ≤ 2000, lines cut at 2000 characters (code points), formatted content cut on a line
// boundary at the 100,000-character read budget with a `next_offset`, notebooks, Word documents and
// Excel workbooks rendered as text (document.ts), device paths, binaries, images and Hermes
// credential files refused, `similar_files` for a missing file, content redacted once by the
// pipeline, in Hermes' file-read mode (`secret_file` for a secret-bearing path). The text read
// itself is text.ts (its bytes scanned by scan.ts). Every answer, a refusal too, carries
// Hermes' ReadResult fields (content, total_lines, file_size, truncated, is_binary, is_image,
// not_found) where Hermes' does.
//
// It answers as the Hermes the gateway fronts (release.ts FILE_TOOL_CHANGES, `ReadRules`): 0.19
// reads 500 lines by default, decides binary by the share of control characters and says "File not
// found" for a directory; later releases read 2000, decide by bytes (and show UTF-16 transcoded),
// name empty files and offsets past the end, retry unicode-equivalent names, count merge conflicts.
//
// Where the gateway deliberately differs (tests/fidelity/divergences/): lines are the file's
// own — no empty line numbered after the final newline, and a last line without a newline is
// counted (Hermes does so since 0.22; before, it read through `sed` and `wc -l`); the read budget
// also fits the gateway's result cap (maxOutputChars), so a page is cut with a `next_offset`
// instead of the whole result being replaced by a truncation receipt.
//
// One call reads at most `readFileScanMaxBytes` of the file (HERMES_MCP_READ_FILE_SCAN_MAX_BYTES):
// upstream counts every line for `total_lines`, which on a huge or sparse file means reading
// gigabytes to show five lines. Past that budget counting stops: `total_lines` is then what was seen
// (`total_lines_is_lower_bound: true`), and lines beyond it are not served.
//
// Repeated reads are answered as Hermes answers them, per task (state/ keeps the state of a
// session or session token; a sessionless call always reads): the same region of an unchanged file
// read again gets Hermes' "unchanged" stub instead of its content, and from the second stub on
// `FILE_READ_REPEATED` (Hermes' "BLOCKED: ..." error); a region read 3 times in a row carries
// Hermes' `_warning`, the 4th is `FILE_READ_REPEATED`. The task's edit of the file, and any other
// tool call, start over (state/). Extracted documents are never de-duplicated, as in Hermes.

function intArg(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

/** Hermes `normalize_read_pagination`: offset ≥ 1; 1 ≤ limit ≤ 2000 (the default per release). */
function normalizeReadPagination(offset: unknown, limit: unknown, defaultLimit: number): { offset: number; limit: number } {
  return {
    offset: Math.max(1, intArg(offset, READ_DEFAULT_OFFSET)),
    limit: Math.max(1, Math.min(intArg(limit, defaultLimit), READ_MAX_LIMIT)),
  };
}

/** The gateway's cap on one tool result leaves this much room for the fields besides the content. */
const RESULT_FIELDS_ROOM = 1024;

/** The JSON-escaped characters a read's content may take within the gateway's result cap. */
function contentRoom(deps: ReadFileDeps): number {
  return deps.maxOutputChars === undefined ? Number.POSITIVE_INFINITY : Math.max(RESULT_FIELDS_ROOM, deps.maxOutputChars - RESULT_FIELDS_ROOM);
}

/** Hermes `_special_file_kind`: what a FIFO, socket or device is called, or null for anything else. */
function specialKind(st: Stats): string | null {
  if (st.isFile() || st.isDirectory()) return null;
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return null; // a dangling symlink (lstat would say so): the read answers for it
}

/**
 * Hermes after 0.19 answers a FIFO, socket or device by its kind before anything opens it (a read
 * would block). The gateway refuses it with that note as the message (FILE_NOT_REGULAR), keeping
 * Hermes' `success: false` and `note` beside it.
 */
async function refuseSpecialFile(real: string, input: string): Promise<void> {
  let st: Stats;
  try {
    st = onLocalFileSystem(real) ? statSync(real) : await stat(real);
  } catch {
    return; // missing or unreadable: the read answers for it
  }
  const kind = specialKind(st);
  if (kind === null) return;
  const note =
    `'${input}' is ${kind}, not a regular file — reading it would block indefinitely, so no read was attempted. ` +
    'Use terminal utilities if you need to interact with it.';
  throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, note, { success: false, note });
}

export async function readFile(deps: ReadFileDeps, rules: ReadRules, args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
  const input = requirePath(args, 'read_file');
  const { offset, limit } = normalizeReadPagination(args.offset, args.limit, rules.defaultLimit);
  const target = await resolveAccess(deps, input, ctx, 'read');
  const { checked } = target;
  const { blocked, secretFile } = target.verdict;
  const maxJson = contentRoom(deps);

  // Order as upstream: device guard, (after 0.19) special files, Hermes internal/credential files
  // for documents, documents, binary extension, the rest's credential check, then the read.
  if (target.device) throw deviceError(input);
  if (rules.specialFileNote) await refuseSpecialFile(checked.real, input);
  const extractable = isExtractableDocument(checked.real, rules.documents);
  if (extractable && blocked) throw new GatewayError(ErrorCode.FILE_BLOCKED, blocked);
  if (extractable) {
    const doc = await readDocument(documentDeps(deps), checked.real, input, { ...rules.documents, displayPath: checked.real }, ctx.signal);
    if (doc.kind === 'text') {
      const structured = documentPage(doc.text, doc.size, offset, limit, maxJson, rules);
      await deps.fileStates?.noteDocumentRead(ctx, checked.real, offset, structured, secretFile);
      return { structured, secretFile };
    }
    // Hermes after 0.19 refuses a binary document it cannot render with the reason; a notebook (and
    // anything in 0.19) is then read as any file.
    const ext = fileExtension(checked.real);
    if (rules.documentFailures && ext !== '.ipynb' && !doc.message.startsWith('Unsupported document type')) {
      throw new GatewayError(
        ErrorCode.FILE_EXTRACTION_FAILED,
        `Cannot read '${input}' (${ext}): document extraction failed — ${doc.message}. Use terminal utilities to inspect or convert the file.`,
      );
    }
  }
  if (hasBinaryExtension(checked.real)) {
    const ext = fileExtension(checked.real);
    throw new GatewayError(
      ErrorCode.FILE_BINARY,
      `Cannot read binary file '${input}' (${ext}). ${visionServed(deps) ? 'Use vision_analyze for images, or terminal to inspect binary files.' : 'Use terminal to inspect binary files.'}`,
    );
  }
  if (blocked) throw new GatewayError(ErrorCode.FILE_BLOCKED, blocked);
  // Hermes' dedup check (read_file_tool): the same region of the file as this task last read it.
  const states = deps.fileStates;
  const repeated = await states?.repeatedRead(ctx, checked.real, offset, limit, rules.loop);
  if (repeated?.kind === 'unchanged') {
    return { structured: { status: 'unchanged', message: READ_DEDUP_STATUS_MESSAGE, path: input, dedup: true, content_returned: false } };
  }
  if (repeated?.kind === 'blocked') throw stubBlocked(input, repeated.times, rules);
  const before = (await states?.statBefore(ctx, checked.real)) ?? null;
  // Every answer is redacted by the pipeline, once, in file-read mode (secret_file for this path).
  // What the task saw is recorded for write_file's read-before-overwrite guard (state/).
  let seen: Stats | undefined;
  let structured: Record<string, unknown>;
  try {
    structured = await readText(deps, rules, { input, expanded: target.expanded, absolute: target.absolute, real: checked.real }, offset, limit, maxJson, ctx, false, (st) => (seen = st));
  } catch (e) {
    // Hermes 0.19 counts a failed read too (its error gets the warning, the 4th is BLOCKED); later releases do not.
    if (!states || !rules.loop.failedReadsCounted || !(e instanceof GatewayError)) throw e;
    const count = await states.noteReadLoop(ctx, input, checked.real, offset, limit, before, rules.loop);
    await states.noteReadTime(ctx, checked.real);
    if (count >= READ_BLOCK_AT) throw readBlocked(input, count, rules);
    if (count >= READ_WARN_AT) throw new GatewayError(e.code, e.message, { ...e.details, _warning: repeatWarning(count) });
    throw e;
  }
  if (!states) return { structured, secretFile };
  const count = await states.noteReadLoop(ctx, input, checked.real, offset, limit, before, rules.loop);
  await states.noteReadTime(ctx, checked.real);
  const page = servedPage(checked.real, offset, limit, structured, secretFile === true, seen);
  if (count >= READ_BLOCK_AT && rules.loop.byVersion) await states.noteBlockedRead(ctx, checked.real);
  else await states.noteRead(ctx, page);
  if (count >= READ_BLOCK_AT) throw readBlocked(input, count, rules);
  if (count >= READ_WARN_AT) structured._warning = repeatWarning(count);
  return { structured, secretFile };
}

export function readFileTool(deps: ReadFileDeps): ToolDefinition {
  const release = deps.release ?? new HermesRelease(undefined);
  const rules = readRules(release);
  const integerArgs = readIntegerArgs(release);
  return {
    name: 'read_file',
    description: description(deps, rules),
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'Path to the file to read (absolute, relative, or ~/path)' },
        offset: { type: 'integer', minimum: 1, default: READ_DEFAULT_OFFSET, description: 'Line number to start reading from (1-indexed, default: 1)' },
        // No minimum, as upstream's schema: a limit below 1 reads one line.
        limit: { type: 'integer', maximum: READ_MAX_LIMIT, default: rules.defaultLimit, description: limitDescription(rules) },
      },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, title: 'Read a file' },
    requiresOwner: false,
    redaction: 'file-read',
    coerceArguments: (args) => coerceIntegerArgs(args, integerArgs),
    async handler(args: Record<string, unknown>, ctx: CallContext) {
      return readFile(deps, rules, args ?? {}, ctx);
    },
  };
}
