// What read_file's document renderers share (extract/): the
// error that makes read_file fall back to its ordinary text/binary handling, and the Python string
// helpers Hermes' tools/read_extract.py renders with.

export class ExtractionError extends Error {}

/** Python's `str.splitlines()`: every line boundary it knows, no trailing empty line. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Python's `s.rstrip("\n")` (a loop: the regex /\n+$/ retries at every newline of a long text). */
export function trimNewlines(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 10) end--;
  return end === s.length ? s : s.slice(0, end);
}
