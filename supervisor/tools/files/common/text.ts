import { constants as fsConstants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { READ_FLAGS, decodeLenient, describeBinaryFile, hasBinaryExtension, isLikelyBinaryBytes } from './file-kind.js';
import { isNotFound, notFoundError, notRegularError, readFailed } from './errors.js';

// Text as write_file, patch and V4A read and write it: the byte-order mark and line endings an
// existing file keeps, whole-file text reads, and text UTF-8 cannot encode.

export const BOM = '\ufeff';

function stripBom(text: string): { text: string; hadBom: boolean } {
  return text.startsWith(BOM) ? { text: text.slice(1), hadBom: true } : { text, hadBom: false };
}

/** Hermes `_detect_line_ending`: CRLF if any in the first 4 KiB, else LF, else null (one line). */
export function detectLineEnding(sample: string): '\r\n' | '\n' | null {
  const head = sample.slice(0, 4096);
  if (head.includes('\r\n')) return '\r\n';
  if (head.includes('\n')) return '\n';
  return null;
}

export function normalizeLineEndings(text: string, target: '\r\n' | '\n'): string {
  const lf = text.replace(/\r\n/g, '\n').replace(/\r/g, '\n');
  return target === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}

// ---------------------------------------------------------------------------------------------
// Whole-file text reads (patch, V4A)

interface RawText {
  /** Decoded content, BOM stripped (a phantom U+FEFF would defeat a first-line match). */
  content: string;
  hadBom: boolean;
  /** The exact bytes on disk (for rollback). */
  bytes: Buffer;
  /** Permission bits, preserved by rewrites. */
  mode: number;
  size: number;
}

/**
 * Hermes `read_file_raw`: the whole file as text. Refuses missing (with suggestions), non-regular,
 * binary and oversized files with GatewayErrors. `absolutePath` is the checked real path, so a
 * symlink found there now was swapped in since the check: O_NOFOLLOW refuses it.
 */
export async function readRawText(input: string, absolutePath: string, maxBytes: number): Promise<RawText> {
  let handle: FileHandle;
  try {
    const st = await stat(absolutePath);
    if (!st.isFile()) throw notRegularError(input);
    handle = await open(absolutePath, READ_FLAGS | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (e) {
    if (e instanceof GatewayError) throw e;
    if (isNotFound(e)) throw await notFoundError(input, absolutePath);
    throw readFailed(input, e);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw notRegularError(input);
    if (st.size > maxBytes) {
      throw new GatewayError(
        ErrorCode.FILE_TOO_LARGE,
        `File is too large (${st.size.toLocaleString('en-US')} bytes, limit is ${maxBytes.toLocaleString('en-US')}). ` +
          'Edit it with the terminal tool, or split the change.',
        { file_size: st.size },
      );
    }
    const bytes = await handle.readFile();
    if (hasBinaryExtension(absolutePath) || isLikelyBinaryBytes(bytes.subarray(0, 1000))) {
      throw new GatewayError(ErrorCode.FILE_BINARY, describeBinaryFile(bytes.subarray(0, 1000), bytes.length), {
        is_binary: true,
        file_size: bytes.length,
      });
    }
    const { text, hadBom } = stripBom(decodeLenient(bytes));
    return { content: text, hadBom, bytes, mode: st.mode & 0o7777, size: bytes.length };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** First bytes of an existing regular file (BOM / line-ending probe), or null when absent. */
export async function probeExisting(absolutePath: string): Promise<{ head: Buffer; mode: number } | null> {
  let handle: FileHandle;
  try {
    handle = await open(absolutePath, READ_FLAGS);
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return null;
    const buf = Buffer.allocUnsafe(Math.min(4096, st.size)); // only the bytes read are used
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return { head: buf.subarray(0, bytesRead), mode: st.mode & 0o7777 };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The bytes Hermes' `write_file` puts on disk for `content`: an existing CRLF file stays CRLF and an
 * existing BOM is kept (read_file strips it and models send bare-LF text).
 */
export function encodeForExisting(content: string, existingHead: Buffer | null): Buffer {
  let text = content;
  if (existingHead) {
    const sample = decodeLenient(existingHead);
    if (detectLineEnding(stripBom(sample).text) === '\r\n') text = normalizeLineEndings(text, '\r\n');
    if (sample.startsWith(BOM) && !text.startsWith(BOM)) text = BOM + text;
  }
  return Buffer.from(text, 'utf8');
}

const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Hermes `_reject_unencodable`: a lone surrogate cannot be written as UTF-8. */
export function assertEncodable(input: string, content: string, style: 'plain' | 'repr' = 'plain'): void {
  const m = LONE_SURROGATE_RE.exec(content);
  if (m) {
    const code = m[0].charCodeAt(0).toString(16).padStart(4, '0');
    // 'repr': the character as Hermes 0.22 shows it (Python's repr, '\\ud800').
    const shown = style === 'repr' ? `'\\u${code}'` : `\\u${code}`;
    throw new GatewayError(
      ErrorCode.INVALID_ARGUMENTS,
      `Refusing to write '${input}': content contains a lone surrogate character (${shown}) that cannot be encoded as UTF-8. The file was NOT created or modified.`,
    );
  }
}
