import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { describeBinaryFile, hasBinaryExtension } from '../common/index.js';
import { answer, emptyRead, pageLines } from './format.js';
import type { ReadFileDeps, ReadPath, ReadRules } from './rules.js';
import type { ReadIo } from './scan.js';

// read_file's UTF-16 text (Hermes `ShellFileOperations._try_read_utf16`, tools/file_operations.py):
// a file the byte-level binary check refused (a NUL, or invalid UTF-8) is shown transcoded when a
// byte-order mark, or the parity of its zero bytes, says it is UTF-16 (Windows Notepad files,
// PowerShell `>` redirects). Legacy 8-bit encodings are never guessed, as upstream.

/** Upstream's `_UTF16_MAX_BYTES`: a larger file is refused as binary instead. */
export const UTF16_MAX_BYTES = 10 * 1024 * 1024;
/** Upstream's `_UTF16_SAMPLE_BYTES`: the leading bytes the parity heuristic looks at. */
const UTF16_SAMPLE_BYTES = 512;

export type Utf16Encoding = 'utf-16-le' | 'utf-16-be';

/**
 * The UTF-16 flavour of `bytes`, or null: a byte-order mark first, then zero bytes only at odd
 * indices of the first 512 (LE) or only at even ones (BE), at least two of them.
 */
export function utf16Encoding(bytes: Uint8Array): Utf16Encoding | null {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16-be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16-le';
  const sample = bytes.subarray(0, UTF16_SAMPLE_BYTES);
  let odd = 0;
  let even = 0;
  for (let i = 0; i < sample.length; i++) {
    if (sample[i] !== 0) continue;
    if (i % 2 === 1) odd++;
    else even++;
  }
  if (even === 0 && odd >= 2) return 'utf-16-le';
  if (odd === 0 && even >= 2) return 'utf-16-be';
  return null;
}

/**
 * The file's lines as upstream reads them: decoded with replacement characters, a leading BOM
 * dropped, CRLF made LF, split on LF. Unlike upstream, the empty string after a final newline is
 * not a line (read_file counts a file's own lines, tests/fidelity/divergences/read_file.yaml).
 */
export function utf16Lines(bytes: Uint8Array, encoding: Utf16Encoding): string[] {
  let text = new TextDecoder(encoding === 'utf-16-le' ? 'utf-16le' : 'utf-16be', { ignoreBOM: true }).decode(bytes);
  if (text.startsWith('\ufeff')) text = text.slice(1);
  text = text.replace(/\r\n/g, '\n');
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/** Upstream's hint for a transcoded read (`enc.upper()`: UTF-16-LE, UTF-16-BE). */
export function utf16Hint(encoding: Utf16Encoding): string {
  return `Transcoded from ${encoding.toUpperCase()} to UTF-8 for display. Text edits via patch/write_file would re-encode as UTF-8.`;
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

/**
 * Hermes after 0.19 `_read_binary_file`: a UTF-16 file (not of a binary extension, at most 10 MiB)
 * shown transcoded, anything else refused with its type named (`describe_binary_file`).
 */
export async function utf16OrBinary(
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
