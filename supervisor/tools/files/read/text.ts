import { constants as fsConstants, type Stats } from 'node:fs';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { CallContext } from '../../../core/tool-types.js';
import { deviceError, onLocalFileSystem, resolveAccess, whereLooked } from '../access/index.js';
import { decodeLenient, hasBinaryExtension, isLikelyBinaryBytes, isNotFound, notFoundError, notRegularError, READ_FLAGS, readFailed } from '../common/index.js';
import { answer, emptyRead, formatCount, withReadFields, type Found } from './format.js';
import { unicodeVariant, variantNote } from './names.js';
import type { ReadFileDeps, ReadPath, ReadRules } from './rules.js';
import { INLINE, POOLED, SNIFF_BYTES, scanPage, type Page } from './scan.js';
import { utf16OrBinary } from './utf16.js';

// read_file's read of a file that is not a document (Hermes `ShellFileOperations.read_file`, its
// native path `_read_file_native`, and what `read_file_tool` adds to a successful read): stat,
// binary check, one scan of the bytes (scan.ts), the page numbered and fitted to the read
// budget. As the Hermes followed (`ReadRules`): after 0.19 a missing file's unicode-equivalent
// name is read instead (names.ts), binary is decided by bytes and UTF-16 text is shown
// transcoded (utf16.ts), and empty files, offsets past the end, cut lines and merge conflicts
// are named in the answer.

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

/** The scan met a head that the byte rules call binary: the read turns to UTF-16 or refuses. */
class BinaryHead {
  constructor(readonly head: Buffer) {}
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
