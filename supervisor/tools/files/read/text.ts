import { constants as fsConstants, type Stats } from 'node:fs';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { HermesCaller } from '../../../platform/hermes/call.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import type { CallContext } from '../../../core/tool-types.js';
import { decodeLenient, describeBinaryFile, type DocumentRules, hasBinaryExtension, isLikelyBinaryBytes, isNotFound, notFoundError, notRegularError, READ_FLAGS, readFailed } from '../common/index.js';
import { deviceError, onLocalFileSystem, type PathDeps, resolveAccess, whereLooked } from '../access/index.js';
import { conflictBlocks, conflictHint, fitReadBudget, formatCount, numbered, overLong } from './format.js';
import { unicodeVariant, variantNote } from './names.js';
import { INLINE, POOLED, SNIFF_BYTES, scanPage, type Page, type ReadIo } from './scan.js';
import { UTF16_MAX_BYTES, utf16Encoding, utf16Hint, utf16Lines } from './utf16.js';
import type { FileStates, ReadLoopRules } from '../state/index.js';

// read_file's read of a file that is not a document (Hermes `ShellFileOperations.read_file`, its
// native path `_read_file_native`, and what `read_file_tool` adds to a successful read): stat,
// binary check, one scan of the bytes (read-scan.ts), the page numbered and fitted to the read
// budget. As the Hermes followed (`ReadRules`): after 0.19 a missing file's unicode-equivalent
// name is read instead (read-names.ts), binary is decided by bytes and UTF-16 text is shown
// transcoded (read-utf16.ts), and empty files, offsets past the end, cut lines and merge conflicts
// are named in the answer.

/** What read_file needs from its host besides paths. */
export interface ReadFileDeps extends PathDeps {
  readFileScanMaxBytes: number;
  /** The gateway's cap on one tool result (`maxOutputChars`): the read budget leaves room under it. */
  maxOutputChars?: number;
  /** The largest file read on the event loop when it is on a local file system (`readFileInlineMaxBytes`). */
  readFileInlineMaxBytes: number;
  /** Whether the catalog serves a tool: images are pointed at vision_analyze only when it does. */
  catalogued?: (name: string) => boolean;
  /** The Hermes followed (release.ts); the newest the gateway knows when absent. */
  release?: HermesRelease;
  /** Calls of Hermes' own functions: its document extractor (read-document.ts); none in a bare composition. */
  hermes?: HermesCaller;
  /** How long Hermes' extractor may take for one document (`readFileDocumentTimeoutSeconds`). */
  readFileDocumentTimeoutSeconds?: number;
  /** The per-task file states (read-state.ts): a page served is recorded there. */
  fileStates?: FileStates;
  /** The workers' transport cap (`workerTransportMaxBytes`): what a document handed to Hermes may weigh. */
  workerTransportMaxBytes?: number;
}

/** read_file's behaviour as the Hermes followed has it (read-file.ts `readRules`, one flag per change). */
export interface ReadRules {
  /** The limit when none is given: 500 (0.19), 2000 (readFileDefaultLimit2000). */
  defaultLimit: number;
  /** 'File is empty (0 bytes).' and the past-the-end note (readFileDeadEndNotes). */
  deadEndNotes: boolean;
  /** `not_found` on every ReadResult answer (readFileNotFoundField). */
  notFoundField: boolean;
  /** Binary by bytes, typed refusal, UTF-16 shown transcoded (readFileBinaryByBytes). */
  binaryByBytes: boolean;
  /** Unicode-equivalent names read, near-miss spellings suggested (readFileNameRecovery). */
  nameRecovery: boolean;
  /** Messages name the resolved path; Hermes' not-a-regular-file text (readFileResolvedPaths). */
  resolvedPaths: boolean;
  /** FIFOs, sockets and devices answered by kind (readFileSpecialFileNote). */
  specialFileNote: boolean;
  /** `truncated_lines` when a shown line was cut (readFileTruncatedLinesFlag). */
  truncatedLinesFlag: boolean;
  /** `conflict_blocks` and its `_hint` (readFileConflictBlocks). */
  conflictBlocks: boolean;
  /** A page's text drops one trailing newline before it is numbered (readFileLinesAsCatN). */
  linesAsCatN: boolean;
  /** Which documents render, and how (readDocument* changes). */
  documents: DocumentRules;
  /** A document that fails to render is refused with Hermes' reason, not read as a file (readDocumentFailuresReported). */
  documentFailures: boolean;
  /** Repeated reads: how a file is compared, whether failed reads count (readFileDedupByVersion, readFileFailedReadsUncounted). */
  loop: ReadLoopRules;
  /** BLOCKED answers carry `guardrail_refusal: true` (readFileBlockedGuardrailMarker). */
  blockedMarker: boolean;
}

/** A path to read: as the caller gave it, `~` expanded, absolute, and real (the one opened). */
export interface ReadPath {
  input: string;
  expanded: string;
  absolute: string;
  real: string;
}

/** Above this size (and a wide, truncated read) a `_hint` nudges toward targeted reads. */
const LARGE_FILE_HINT_BYTES = 512_000;

/** Hermes' ReadResult fields of an answer without content (`ReadResult().to_dict()`). */
function emptyRead(rules: ReadRules): Record<string, unknown> {
  const fields: Record<string, unknown> = { content: '', total_lines: 0, file_size: 0, truncated: false, is_binary: false, is_image: false };
  if (rules.notFoundField) fields.not_found = false;
  return fields;
}

const BINARY_CONTENT_MESSAGE = 'Binary file - cannot display as text. Use appropriate tools to handle this file type.';

/**
 * Hermes 0.19 `ShellFileOperations._is_likely_binary` on the decoded head of the file: binary when
 * more than 30% of its first 1000 characters are control characters other than \n, \r and \t.
 * (Invalid UTF-8 decodes to U+FFFD and a stray NUL in text is one character among many: both are shown.)
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

/** Why total_lines is a lower bound: the scan stopped at the per-call budget. */
function budgetNote(stoppedAt: number, fileSize: number): string {
  return `lines were counted in the first ${formatCount(stoppedAt)} of ${formatCount(fileSize)} bytes only (HERMES_MCP_READ_FILE_SCAN_MAX_BYTES)`;
}

/** A refusal of a missing or irregular file with Hermes' ReadResult fields (`similar_files` only when there are some). */
function withReadFields(e: GatewayError, rules: ReadRules, notFound = false): GatewayError {
  const { similar_files: similar, ...rest } = e.details ?? {};
  const details: Record<string, unknown> = { ...emptyRead(rules), ...rest };
  if (rules.notFoundField) details.not_found = notFound;
  if (Array.isArray(similar) && similar.length > 0) details.similar_files = similar;
  return new GatewayError(e.code, e.message, details);
}

/** Hermes after 0.19 `_not_regular_error`, naming the resolved path. */
function notRegular(p: ReadPath, rules: ReadRules): GatewayError {
  if (!rules.resolvedPaths) return withReadFields(notRegularError(p.input), rules);
  return withReadFields(
    new GatewayError(
      ErrorCode.FILE_NOT_REGULAR,
      `Cannot read '${p.real}': not a regular file (directory, dangling symlink, FIFO, socket, or device). Reading it could block indefinitely.`,
    ),
    rules,
  );
}

/**
 * A page of lines as Hermes after 0.21 numbers a page it joined itself (a document's, a UTF-16
 * file's): one trailing newline of the joined text is dropped, so a blank last line of the page is
 * not shown (`_add_line_numbers`).
 */
export function pageLines(page: string[], rules: ReadRules): string[] {
  return rules.linesAsCatN && page.length > 1 && page[page.length - 1] === '' ? page.slice(0, -1) : page;
}

/** The scan met a head that the byte rules call binary: the read turns to UTF-16 or refuses. */
class BinaryHead {
  constructor(readonly head: Buffer) {}
}

/** `size` bytes of `fd` from its start (fewer if it shrank since its fstat). */
async function readAll(io: ReadIo, fd: number, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const n = await io.read(fd, buf.subarray(filled), size - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}

/** What a read found: the page's lines as the file has them, and what the answer says about them. */
interface Found {
  lines: string[];
  totalLines: number;
  fileSize: number;
  truncated: boolean;
  hint?: string;
  extra?: Record<string, unknown>;
}

/**
 * The file at `p` read from `offset` for `limit` lines, as the Hermes followed answers it (the
 * structured result; refusals are thrown with Hermes' ReadResult fields).
 */
export async function readText(
  deps: ReadFileDeps,
  rules: ReadRules,
  p: ReadPath,
  offset: number,
  limit: number,
  maxJson: number,
  ctx: CallContext,
  asVariant = false,
  /** Told what was opened (its fstat), for the per-task file state. */
  opened?: (st: Stats) => void,
): Promise<Record<string, unknown>> {
  // stat (not open) first, so a FIFO or device is refused before anything touches it. The real path
  // is the one that was checked; O_NOFOLLOW refuses a symlink swapped in since.
  const local = onLocalFileSystem(p.real);
  const io = local ? INLINE : POOLED;
  let fd: number;
  try {
    const st = await io.stat(p.real);
    if (!st.isFile()) throw notRegular(p, rules);
    fd = await io.open(p.real, READ_FLAGS | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (e) {
    if (e instanceof GatewayError) throw e;
    if (isNotFound(e)) return missing(deps, rules, p, offset, limit, maxJson, ctx, asVariant);
    if (rules.resolvedPaths && (e as NodeJS.ErrnoException | null)?.code === 'ELOOP') throw notRegular(p, rules);
    throw readFailed(p.input, e);
  }

  const endLine = offset + limit - 1;
  let found: Found;
  try {
    // What was opened must still be a regular file: the path could have been swapped since the stat.
    const st = await io.fstat(fd);
    if (!st.isFile()) throw notRegular(p, rules);
    opened?.(st);
    const fileSize = st.size;
    // An empty size (procfs reports one) says nothing of how much there is to read.
    const reads = local && fileSize > 0 && fileSize <= deps.readFileInlineMaxBytes ? INLINE : POOLED;
    let page: Page;
    try {
      page = await scanPage(reads, fd, offset, endLine, deps.readFileScanMaxBytes, fileSize, (head) => {
        if (rules.binaryByBytes) {
          if (hasBinaryExtension(p.real) || isLikelyBinaryBytes(head)) throw new BinaryHead(Buffer.from(head));
        } else if (isLikelyBinaryText(decodeLenient(head))) {
          throw new GatewayError(ErrorCode.FILE_BINARY, BINARY_CONTENT_MESSAGE, { ...emptyRead(rules), is_binary: true, file_size: fileSize });
        }
      });
    } catch (e) {
      if (!(e instanceof BinaryHead)) throw e;
      return await utf16OrBinary(deps, rules, p, reads, fd, fileSize, e.head, offset, limit, maxJson);
    }
    const dead = deadEnd(rules, page, fileSize, offset);
    if (dead) return dead;
    const { lines } = page;
    if (offset === 1 && lines.length > 0 && lines[0]!.startsWith('\ufeff')) lines[0] = lines[0]!.slice(1);
    const lastShown = offset + lines.length - 1;
    const budget = page.stoppedAt === null ? null : budgetNote(page.stoppedAt, fileSize);
    found = { lines, totalLines: page.totalLines, fileSize, truncated: page.totalLines > endLine || budget !== null };
    if (budget) {
      found.extra = { total_lines_is_lower_bound: true };
      found.hint = `Use offset=${lastShown + 1} to continue reading (showing ${offset}-${lastShown} of at least ${page.totalLines} lines; ${budget})`;
    } else if (found.truncated) {
      found.hint = `Use offset=${endLine + 1} to continue reading (showing ${offset}-${endLine} of ${page.totalLines} lines)`;
    }
  } finally {
    io.close(fd);
  }
  return answer(rules, found, offset, limit, maxJson);
}


/** The answer for no lines to show (an empty file, an offset past the end), or null when there are some. */
function deadEnd(rules: ReadRules, page: Page, fileSize: number, offset: number): Record<string, unknown> | null {
  const base = { ...emptyRead(rules), total_lines: page.totalLines, file_size: fileSize };
  if (offset > page.totalLines && page.stoppedAt !== null) {
    return {
      ...base,
      truncated: true,
      total_lines_is_lower_bound: true,
      hint: `Note: offset ${offset} lies beyond what read_file reads of this file (${budgetNote(page.stoppedAt, fileSize)}: ${page.totalLines} lines seen). Use terminal for that part of the file.`,
    };
  }
  if (rules.deadEndNotes && fileSize === 0 && page.totalLines === 0) return { ...base, hint: 'File is empty (0 bytes).' };
  if (offset <= page.totalLines) return null;
  if (rules.deadEndNotes && page.totalLines > 0) {
    return { ...base, hint: `Note: offset ${offset} is beyond the end of the file (${page.totalLines} lines total). Retry with offset <= ${page.totalLines}.` };
  }
  return base;
}

/**
 * The answer for the lines found: numbered, fitted to the read budget, with Hermes' hints (and
 * after 0.19 `truncated_lines` and the merge-conflict count).
 */
function answer(rules: ReadRules, found: Found, offset: number, limit: number, maxJson: number): Record<string, unknown> {
  const result: Record<string, unknown> = { ...emptyRead(rules), total_lines: found.totalLines, file_size: found.fileSize, truncated: found.truncated, ...found.extra };
  if (found.hint !== undefined) result.hint = found.hint;
  if (rules.truncatedLinesFlag && found.lines.some(overLong)) result.truncated_lines = true;
  // The read budget on the formatted content (what would enter the model's context), before redaction.
  fitReadBudget(result, numbered(found.lines, offset), offset, found.totalLines, maxJson, rules.truncatedLinesFlag);
  if (rules.conflictBlocks) {
    const blocks = conflictBlocks(String(result.content));
    if (blocks > 0) {
      result.conflict_blocks = blocks;
      result._hint = conflictHint(blocks);
    }
  }
  if (result._hint === undefined && result.truncated && found.fileSize > LARGE_FILE_HINT_BYTES && limit > 200) {
    result._hint =
      `This file is large (${formatCount(found.fileSize)} bytes). Consider reading only the section you need with offset and limit ` +
      'to keep context usage efficient.';
  }
  return result;
}

/**
 * Hermes after 0.19 `_read_binary_file`: a UTF-16 file (not of a binary extension, at most 10 MiB)
 * shown transcoded, anything else refused with its type named (`describe_binary_file`).
 */
async function utf16OrBinary(
  deps: ReadFileDeps,
  rules: ReadRules,
  p: ReadPath,
  io: ReadIo,
  fd: number,
  fileSize: number,
  head: Buffer,
  offset: number,
  limit: number,
  maxJson: number,
): Promise<Record<string, unknown>> {
  if (!hasBinaryExtension(p.real) && fileSize <= Math.min(UTF16_MAX_BYTES, deps.readFileScanMaxBytes)) {
    const bytes = await readAll(io, fd, fileSize);
    const encoding = utf16Encoding(bytes);
    if (encoding !== null) {
      const all = utf16Lines(bytes, encoding);
      const endLine = offset + limit - 1;
      const truncated = all.length > endLine;
      const hint = utf16Hint(encoding) + (truncated ? ` Use offset=${endLine + 1} to continue reading (showing ${offset}-${endLine} of ${all.length} lines)` : '');
      return answer(rules, { lines: pageLines(all.slice(offset - 1, endLine), rules), totalLines: all.length, fileSize, truncated, hint }, offset, limit, maxJson);
    }
  }
  throw new GatewayError(ErrorCode.FILE_BINARY, describeBinaryFile(head, fileSize), { ...emptyRead(rules), is_binary: true, file_size: fileSize });
}

/**
 * A missing file: after 0.19 its one unicode-equivalent name is read instead, with a note;
 * otherwise "File not found" with similar names from its directory.
 */
async function missing(
  deps: ReadFileDeps,
  rules: ReadRules,
  p: ReadPath,
  offset: number,
  limit: number,
  maxJson: number,
  ctx: CallContext,
  asVariant: boolean,
): Promise<Record<string, unknown>> {
  if (rules.nameRecovery && !asVariant) {
    const variant = await unicodeVariant(p.real);
    if (variant !== null) return readVariant(deps, rules, p, variant, offset, limit, maxJson, ctx);
  }
  const e = rules.resolvedPaths
    ? await notFoundError(p.real, p.real, { nearMiss: rules.nameRecovery }, whereLooked(deps.access, p.real, p.real))
    : await notFoundError(p.expanded, p.absolute, {}, whereLooked(deps.access, p.absolute, p.expanded));
  throw withReadFields(e, rules, true);
}

/**
 * The unicode-equivalent file read in the missing one's place, under every check the asked path
 * had (the roots, devices, Hermes' read blocks), its answer or refusal carrying upstream's note.
 */
async function readVariant(
  deps: ReadFileDeps,
  rules: ReadRules,
  asked: ReadPath,
  variant: string,
  offset: number,
  limit: number,
  maxJson: number,
  ctx: CallContext,
): Promise<Record<string, unknown>> {
  const note = variantNote(asked.real, variant);
  const noted = (hint: unknown) => (typeof hint === 'string' && hint !== '' ? `${note} ${hint}` : note);
  try {
    const target = await resolveAccess(deps, variant, ctx, 'read');
    if (target.device) throw deviceError(variant);
    if (target.verdict.blocked) throw new GatewayError(ErrorCode.FILE_BLOCKED, target.verdict.blocked);
    const result = await readText(deps, rules, { input: variant, expanded: variant, absolute: target.absolute, real: target.checked.real }, offset, limit, maxJson, ctx, true);
    return { ...result, hint: noted(result.hint) };
  } catch (e) {
    if (!(e instanceof GatewayError)) throw e;
    throw new GatewayError(e.code, e.message, { ...e.details, hint: noted(e.details?.hint) });
  }
}
