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
