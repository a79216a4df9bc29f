import { constants as fsConstants, type Stats } from 'node:fs';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../core/tool-types.js';
import { READ_FLAGS, decodeLenient, fileExtension, hasBinaryExtension, isNotFound, notFoundError, notRegularError, readFailed } from './fs-util.js';
import { resolveToolPath } from './confine.js';
import { isExtractableDocument, splitLines } from './read-extract.js';
import { extractedDocument } from './read-document.js';
import { INLINE, MAX_LINE_LENGTH, POOLED, SNIFF_BYTES, scanPage, type Page } from './read-scan.js';
import { onLocalFileSystem } from './local-fs.js';
import { requireString, type PathDeps } from './paths.js';
import { servedPage, type FileStates } from './read-state.js';
import { checkedPath, deviceError, isBlockedDevice, readVerdict } from './sensitive-paths.js';

// read_file — Hermes' paginated text read (tools/file_tools.py `read_file_tool`,
// tools/file_operations.py `ShellFileOperations.read_file`): `N|line` gutter, 1-indexed offset,
// limit ≤ 2000, lines cut at 2000 characters (code points), formatted content cut on a line
// boundary at the 100,000-character read budget with a `next_offset`, notebooks, Word documents and
// Excel workbooks rendered as text (read-document.ts), device paths, binaries, images and Hermes
// credential files refused, `similar_files` for a missing file, content redacted once by the
// pipeline, in Hermes' file-read mode (`secret_file` for a secret-bearing path). The file's bytes
// are scanned by read-scan.ts. Every answer, a refusal too, carries Hermes' ReadResult fields
// (content, total_lines, file_size, truncated, is_binary, is_image) where Hermes' does.
//
// Where the gateway deliberately differs (tests/fidelity/divergences.yaml): lines are the file's
// own — no empty line numbered after the final newline, and a last line without a newline is
// counted (upstream reads through `sed` and `wc -l`); the read budget also fits the gateway's
// result cap (maxOutputChars), so a page is cut with a `next_offset` instead of the whole result
// being replaced by a truncation receipt.
//
// One call reads at most `readFileScanMaxBytes` of the file (HERMES_MCP_READ_FILE_SCAN_MAX_BYTES):
// upstream counts every line (`wc -l`) for `total_lines`, which on a huge or sparse file means
// reading gigabytes to show five lines. Past that budget counting stops: `total_lines` is then
// what was seen (`total_lines_is_lower_bound: true`), and lines beyond it are not served.
//
// Hermes' per-task read state (the "unchanged since last read" dedup stub, the repeat warnings
// and BLOCKED errors, staleness timestamps for later writes) is deliberately NOT kept: the gateway
// is stateless per call, so every read returns the file's content.

const READ_DEFAULT_OFFSET = 1;
const READ_DEFAULT_LIMIT = 500;
const READ_MAX_LIMIT = 2000;
/** `file_read_max_chars`: formatted content above this is cut on a line boundary. */
const MAX_READ_CHARS = 100_000;
/** What a read answer needs besides its content (the other fields, the hints), within the result cap. */
const RESULT_FIELDS_ROOM = 1024;
/** Above this size (and a wide, truncated read) a `_hint` nudges toward targeted reads. */
const LARGE_FILE_HINT_BYTES = 512_000;

function intArg(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

/** Hermes `normalize_read_pagination`: offset ≥ 1; 1 ≤ limit ≤ 2000. */
function normalizeReadPagination(offset: unknown, limit: unknown): { offset: number; limit: number } {
  return {
    offset: Math.max(1, intArg(offset, READ_DEFAULT_OFFSET)),
    limit: Math.max(1, Math.min(intArg(limit, READ_DEFAULT_LIMIT), READ_MAX_LIMIT)),
  };
}

function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** What read_file needs from its host besides paths: the per-call read budget. */
interface ReadFileDeps extends PathDeps {
  readFileScanMaxBytes: number;
  /** The gateway's cap on one tool result (`maxOutputChars`): the read budget leaves room under it. */
  maxOutputChars?: number;
  /** The largest file read on the event loop when it is on a local file system (`readFileInlineMaxBytes`). */
  readFileInlineMaxBytes: number;
  /** Whether the catalog serves a tool: images are pointed at vision_analyze only when it does. */
  catalogued?: (name: string) => boolean;
  /** The per-task file states (read-state.ts): a page served is recorded there. */
  fileStates?: FileStates;
}

const visionServed = (deps: ReadFileDeps) => deps.catalogued?.('vision_analyze') === true;


/** Why total_lines is a lower bound: the scan stopped at the per-call budget. */
function budgetNote(stoppedAt: number, fileSize: number): string {
  return `lines were counted in the first ${formatCount(stoppedAt)} of ${formatCount(fileSize)} bytes only (HERMES_MCP_READ_FILE_SCAN_MAX_BYTES)`;
}

/** Hermes' ReadResult fields of an answer without content (`ReadResult().to_dict()`). */
const EMPTY_READ = { content: '', total_lines: 0, file_size: 0, truncated: false, is_binary: false, is_image: false };

const BINARY_CONTENT_MESSAGE = 'Binary file - cannot display as text. Use appropriate tools to handle this file type.';

/**
 * Hermes `ShellFileOperations._is_likely_binary` on the decoded head of the file: binary when more
 * than 30% of its first 1000 characters are control characters other than \n, \r and \t. (Invalid
 * UTF-8 decodes to U+FFFD and a stray NUL in text is one character among many: both are shown.)
 */
function isLikelyBinaryText(sample: string): boolean {
  let chars = 0;
  let control = 0;
  for (const ch of sample) {
    if (chars === SNIFF_BYTES) break;
    chars++;
    if (ch.codePointAt(0)! < 32 && ch !== '\n' && ch !== '\r' && ch !== '\t') control++;
  }
  return chars > 0 && control / chars > 0.3;
}

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Characters as Python counts them (code points), not UTF-16 units. */
function codePoints(s: string): number {
  return s.length - (s.match(SURROGATE_PAIR)?.length ?? 0);
}

/** A line cut at MAX_LINE_LENGTH code points (Python slicing never splits a character). */
function cutLine(line: string): string {
  if (line.length <= MAX_LINE_LENGTH) return line;
  const chars = Array.from(line);
  return chars.length <= MAX_LINE_LENGTH ? line : chars.slice(0, MAX_LINE_LENGTH).join('') + '... [truncated]';
}

function numbered(lines: string[], start: number): string[] {
  return lines.map((line, i) => `${start + i}|${cutLine(line)}`);
}

/**
 * Hermes `_truncate_to_char_budget` on the numbered lines: the lines that fit MAX_READ_CHARS
 * characters (joined by "\n"), and also `maxJson` characters once JSON-escaped (the result cap), at
 * least a clamped first line. Sets content, and when lines were left out truncated, truncated_by,
 * next_offset and the hint to continue.
 */
function fitReadBudget(result: Record<string, unknown>, lines: string[], offset: number, totalLines: number, maxJson: number): void {
  // The common case at once: UTF-16 units are never fewer than characters.
  const whole = lines.join('\n');
  if (whole.length <= MAX_READ_CHARS && (maxJson === Number.POSITIVE_INFINITY || JSON.stringify(whole).length - 2 <= maxJson)) {
    result.content = whole;
    return;
  }
  const kept: string[] = [];
  let chars = 0;
  let json = 0;
  for (const line of lines) {
    const addChars = codePoints(line) + (kept.length > 0 ? 1 : 0);
    const addJson = JSON.stringify(line).length - 2 + (kept.length > 0 ? 2 : 0);
    if (chars + addChars > MAX_READ_CHARS || json + addJson > maxJson) break;
    kept.push(line);
    chars += addChars;
    json += addJson;
  }
  if (kept.length === lines.length) {
    result.content = whole;
    return;
  }
  const budget = Math.min(MAX_READ_CHARS, maxJson);
  const clamped = kept.length === 0;
  if (clamped) kept.push(Array.from(lines[0]!).slice(0, budget).join(''));
  const next = offset + kept.length;
  result.content = kept.join('\n');
  result.truncated = true;
  result.truncated_by = 'bytes';
  result.next_offset = next;
  result.hint =
    `Output truncated at the ${formatCount(budget)}-char read budget after ${kept.length} line(s) ` +
    `(showing lines ${offset}-${next - 1} of ${totalLines}). Use offset=${next} to continue.` +
    (clamped ? ' Note: the first line alone exceeded the budget and was clamped mid-line; its remainder is not retrievable via offset.' : '');
}

/** The JSON-escaped characters a read's content may take within the gateway's result cap. */
function contentRoom(deps: ReadFileDeps): number {
  return deps.maxOutputChars === undefined ? Number.POSITIVE_INFINITY : Math.max(RESULT_FIELDS_ROOM, deps.maxOutputChars - RESULT_FIELDS_ROOM);
}


/** Hermes' answer for an extracted document: its lines paged and numbered, `extracted_document: true`. */
function documentPage(text: string, size: number, offset: number, limit: number, maxJson: number): Record<string, unknown> {
  const lines = splitLines(text);
  const end = offset + limit - 1;
  const page = lines.slice(offset - 1, end);
  const result: Record<string, unknown> = { content: '', total_lines: lines.length, file_size: size, truncated: lines.length > end, extracted_document: true };
  if (result.truncated) result.hint = `Use offset=${end + 1} to continue reading (showing ${offset}-${Math.min(end, lines.length)} of ${lines.length} lines)`;
  // Upstream numbers the page only when its text is not empty (a page of one empty line shows nothing).
  if (page.join('\n') !== '') fitReadBudget(result, numbered(page, offset), offset, lines.length, maxJson);
  return result;
}

export async function readFile(deps: ReadFileDeps, args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
  const input = requireString(args, 'path', 'read_file');
  const { offset, limit } = normalizeReadPagination(args.offset, args.limit);
  const target = await resolveToolPath(deps, input, ctx);
  const checked = await checkedPath(target);
  const maxJson = contentRoom(deps);

  // Order as upstream: device guard, documents, binary extension, Hermes internal/credential files,
  // then I/O (a document is checked against the credential files before it is opened).
  if (await isBlockedDevice(checked)) throw deviceError(input);
  const extractable = isExtractableDocument(checked.real);
  const verdict = extractable ? await readVerdict(checked, input, deps.hermesHome) : null;
  if (verdict?.blocked) throw new GatewayError(ErrorCode.FILE_BLOCKED, verdict.blocked);
  if (extractable) {
    const doc = await extractedDocument(checked.real, deps.readFileScanMaxBytes, ctx.signal);
    if (doc) {
      const structured = documentPage(doc.text, doc.size, offset, limit, maxJson);
      await deps.fileStates?.noteDocumentRead(ctx, checked.real, offset, structured, verdict?.secretFile === true);
      return { structured, secretFile: verdict?.secretFile === true };
    }
  }
  if (hasBinaryExtension(checked.real)) {
    const ext = fileExtension(checked.real);
    throw new GatewayError(
      ErrorCode.FILE_BINARY,
      `Cannot read binary file '${input}' (${ext}). ${visionServed(deps) ? 'Use vision_analyze for images, or terminal to inspect binary files.' : 'Use terminal to inspect binary files.'}`,
    );
  }
  const { blocked, secretFile } = verdict ?? (await readVerdict(checked, input, deps.hermesHome));
  if (blocked) throw new GatewayError(ErrorCode.FILE_BLOCKED, blocked);
  // Every answer is redacted by the pipeline, once, in file-read mode (secret_file for this path).
  // What the task saw is recorded for write_file's read-before-overwrite guard (read-state.ts).
  let seen: Stats | undefined;
  const answer = async (result: Record<string, unknown>): Promise<ToolOutcome> => {
    await deps.fileStates?.noteRead(ctx, servedPage(checked.real, offset, limit, result, secretFile === true, seen, MAX_LINE_LENGTH));
    return { structured: result, secretFile };
  };

  // stat (not open) first, so a FIFO or device is refused before anything touches it. The real path
  // is the one that was checked; O_NOFOLLOW refuses a symlink swapped in since.
  const local = onLocalFileSystem(checked.real);
  const io = local ? INLINE : POOLED;
  let fd: number;
  try {
    const st = await io.stat(checked.real);
    if (!st.isFile()) throw notRegularError(input);
    fd = await io.open(checked.real, READ_FLAGS | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (e) {
    if (e instanceof GatewayError) throw withReadFields(e);
    if (isNotFound(e)) throw withReadFields(await notFoundError(target.expanded, target.absolute));
    throw readFailed(input, e);
  }

  let fileSize: number;
  let page: Page;
  const endLine = offset + limit - 1;
  try {
    // What was opened must still be a regular file: the path could have been swapped since the stat.
    const st = await io.fstat(fd);
    if (!st.isFile()) throw withReadFields(notRegularError(input));
    fileSize = st.size;
    seen = st;
    // An empty size (procfs reports one) says nothing of how much there is to read.
    const reads = local && fileSize > 0 && fileSize <= deps.readFileInlineMaxBytes ? INLINE : POOLED;
    page = await scanPage(reads, fd, offset, endLine, deps.readFileScanMaxBytes, fileSize, (head) => {
      if (isLikelyBinaryText(decodeLenient(head))) {
        throw new GatewayError(ErrorCode.FILE_BINARY, BINARY_CONTENT_MESSAGE, { ...EMPTY_READ, is_binary: true, file_size: fileSize });
      }
    });
  } finally {
    io.close(fd);
  }

  const base = { content: '', total_lines: page.totalLines, file_size: fileSize, truncated: false, is_binary: false, is_image: false };
  const budget = page.stoppedAt === null ? null : budgetNote(page.stoppedAt, fileSize);
  if (offset > page.totalLines && budget) {
    return answer({
      ...base,
      truncated: true,
      total_lines_is_lower_bound: true,
      hint: `Note: offset ${offset} lies beyond what read_file reads of this file (${budget}: ${page.totalLines} lines seen). Use terminal for that part of the file.`,
    });
  }
  // An empty file, or an offset past its end: no lines to show.
  if (offset > page.totalLines) return answer(base);

  const { lines } = page;
  if (offset === 1 && lines.length > 0 && lines[0]!.startsWith('\ufeff')) lines[0] = lines[0]!.slice(1);
  const lastShown = offset + lines.length - 1;
  const truncated = page.totalLines > endLine || budget !== null;

  const result: Record<string, unknown> = { ...base, truncated };
  if (budget) {
    result.total_lines_is_lower_bound = true;
    result.hint = `Use offset=${lastShown + 1} to continue reading (showing ${offset}-${lastShown} of at least ${page.totalLines} lines; ${budget})`;
  } else if (truncated) {
    result.hint = `Use offset=${endLine + 1} to continue reading (showing ${offset}-${endLine} of ${page.totalLines} lines)`;
  }
  // The read budget on the formatted content (what would enter the model's context), before redaction.
  fitReadBudget(result, numbered(lines, offset), offset, page.totalLines, maxJson);
  if (result.truncated && fileSize > LARGE_FILE_HINT_BYTES && limit > 200) {
    result._hint =
      `This file is large (${formatCount(fileSize)} bytes). Consider reading only the section you need with offset and limit ` +
      'to keep context usage efficient.';
  }
  return answer(result);
}

/** A refusal of a missing or irregular file with Hermes' ReadResult fields (`similar_files` only when there are some). */
function withReadFields(e: GatewayError): GatewayError {
  const { similar_files: similar, ...rest } = e.details ?? {};
  const details: Record<string, unknown> = { ...EMPTY_READ, ...rest };
  if (Array.isArray(similar) && similar.length > 0) details.similar_files = similar;
  return new GatewayError(e.code, e.message, details);
}

export function readFileTool(deps: ReadFileDeps): ToolDefinition {
  return {
    name: 'read_file',
    description:
      'Read a text file with line numbers and pagination. Use this instead of cat/head/tail in terminal. ' +
      "Output format: 'LINE_NUM|CONTENT'. Suggests similar filenames if not found. Use offset and limit for large files. " +
      'Reads exceeding ~100K characters are truncated on a line boundary and return a next_offset; continue with offset to read the rest. ' +
      'Jupyter notebooks (.ipynb), Word documents (.docx), and Excel workbooks (.xlsx) are auto-extracted to readable text. ' +
      `NOTE: Cannot read images or other binary files${visionServed(deps) ? ' — use vision_analyze for images' : ''}.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'Path to the file to read (absolute, relative, or ~/path)' },
        offset: { type: 'integer', minimum: 1, default: READ_DEFAULT_OFFSET, description: 'Line number to start reading from (1-indexed, default: 1)' },
        // No minimum, as upstream's schema: a limit below 1 reads one line.
        limit: {
          type: 'integer',
          maximum: READ_MAX_LIMIT,
          default: READ_DEFAULT_LIMIT,
          description: 'Maximum number of lines to read (default: 500, max: 2000)',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, title: 'Read a file' },
    requiresOwner: false,
    redaction: 'file-read',
    async handler(args: Record<string, unknown>, ctx: CallContext) {
      return readFile(deps, args ?? {}, ctx);
    },
  };
}
