// Truncation notice and the string head/tail cap of shared/output-cap.ts.

// ---------------------------------------------------------------------------------------------
// Truncation notice
// ---------------------------------------------------------------------------------------------

export interface NoticeOptions {
  /**
   * Group digits with commas (`12,345`). Hermes' execute_code notice formats with `{n:,}`; its
   * terminal notice (`_truncate_output`) prints plain integers. Default: false (terminal form).
   */
  thousands?: boolean;
}

function formatCount(n: number, thousands: boolean): string {
  const s = String(n);
  return thousands ? s.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : s;
}

/**
 * Hermes' truncation notice, including its surrounding blank lines:
 * `\n\n... [OUTPUT TRUNCATED - N chars omitted out of M total] ...\n\n`.
 */
export function truncationNotice(omitted: number, total: number, options: NoticeOptions = {}): string {
  const t = options.thousands ?? false;
  return `\n\n... [OUTPUT TRUNCATED - ${formatCount(omitted, t)} chars omitted out of ${formatCount(total, t)} total] ...\n\n`;
}

// ---------------------------------------------------------------------------------------------
// String head/tail cap
// ---------------------------------------------------------------------------------------------

export interface HeadTailResult {
  text: string;
  truncated: boolean;
  /** Length of the input in code points (Python `len(str)`). */
  totalChars: number;
  /** Code points removed from the middle (0 when not truncated). */
  omittedChars: number;
}

function isHighSurrogate(u: number): boolean {
  return u >= 0xd800 && u <= 0xdbff;
}
function isLowSurrogate(u: number): boolean {
  return u >= 0xdc00 && u <= 0xdfff;
}

function codePointLength(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    if (isHighSurrogate(s.charCodeAt(i)) && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) i++;
    count++;
  }
  return count;
}

/** UTF-16 index just after the first `count` code points. */
function indexAfterCodePoints(s: string, count: number): number {
  let i = 0;
  while (count > 0 && i < s.length) {
    if (isHighSurrogate(s.charCodeAt(i)) && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) i += 2;
    else i++;
    count--;
  }
  return i;
}

/** UTF-16 index where the last `count` code points start. */
function indexOfLastCodePoints(s: string, count: number): number {
  let i = s.length;
  while (count > 0 && i > 0) {
    if (i >= 2 && isLowSurrogate(s.charCodeAt(i - 1)) && isHighSurrogate(s.charCodeAt(i - 2))) i -= 2;
    else i--;
    count--;
  }
  return i;
}

/**
 * Hermes' head/tail cap: text longer than `maxChars` code points keeps its first
 * `int(maxChars * headRatio)` and last `maxChars - head` code points around the truncation notice.
 * Lengths count code points like Python's `len(str)`, so a surrogate pair is never split.
 */
export function capHeadTail(
  text: string,
  maxChars: number,
  headRatio = 0.4,
  options: NoticeOptions = {},
): HeadTailResult {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError('maxChars must be a positive integer');
  if (!(headRatio >= 0 && headRatio <= 1)) throw new RangeError('headRatio must be within [0, 1]');
  // Code points never outnumber UTF-16 units: a short string needs no counting.
  if (text.length <= maxChars) return { text, truncated: false, totalChars: codePointLength(text), omittedChars: 0 };
  const total = codePointLength(text);
  if (total <= maxChars) return { text, truncated: false, totalChars: total, omittedChars: 0 };
  const headChars = Math.trunc(maxChars * headRatio); // Python int(): truncation
  const tailChars = maxChars - headChars;
  const omitted = total - headChars - tailChars;
  const head = text.slice(0, indexAfterCodePoints(text, headChars));
  // Gateway: a zero-length tail is empty (Python's `output[-0:]` would be the whole string).
  const tail = tailChars > 0 ? text.slice(indexOfLastCodePoints(text, tailChars)) : '';
  return {
    text: head + truncationNotice(omitted, total, options) + tail,
    truncated: true,
    totalChars: total,
    omittedChars: omitted,
  };
}
