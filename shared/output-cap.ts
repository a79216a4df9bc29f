// Output shaping shared by execute_code and terminal output, ported from Hermes Agent:
//
//   - stripAnsi: `tools/ansi_strip.py` `strip_ansi` (full ECMA-48: CSI, OSC, DCS/SOS/PM/APC, nF,
//     Fp/Fe/Fs, 8-bit C1), as a linear scanner with the regex's exact semantics;
//   - capHeadTail: the 40% head / 60% tail string cap of terminal output (`_truncate_output`,
//     `tool_output.max_bytes` = 50,000 chars) with Hermes' notice;
//   - BoundedCollector: the byte-stream side of execute_code stdout (`_drain_head_tail`): first 40%
//     of the bytes kept, last 60% kept in a rolling window, so memory stays bounded however much the
//     child prints.
//
// Hermes' terminal pipeline order (reference §3) is truncate → ANSI strip → redact; callers compose
// capHeadTail → stripAnsi → shared/redact.ts themselves.

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
// ANSI stripping
// ---------------------------------------------------------------------------------------------

// Same fast-path gate as Hermes' `_HAS_ESCAPE`: without ESC or an 8-bit C1 control nothing can match.
const HAS_ESCAPE_RE = /[\x1b\x80-\x9f]/;

/**
 * Forward `indexOf` with memory. Scan positions only ever increase, so a found index that is still
 * ahead of the scan is still the nearest one, and "none from here" stays "none" further on: each
 * needle's searches cover disjoint stretches, keeping the whole strip linear even on input full of
 * unterminated OSC/DCS openers (which make the plain regex quadratic).
 */
class ForwardFinder {
  private from = 0;
  private at = -2; // -2: not searched yet
  constructor(
    private readonly text: string,
    private readonly needle: string,
  ) {}

  next(from: number): number {
    if (this.at !== -2 && this.from <= from && (this.at === -1 || this.at >= from)) return this.at;
    this.from = from;
    this.at = this.text.indexOf(this.needle, from);
    return this.at;
  }
}

function inRange(c: number, lo: number, hi: number): boolean {
  return c >= lo && c <= hi;
}

/** End (exclusive) of `[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]` starting at k, or -1. */
function csiEnd(text: string, k: number): number {
  const n = text.length;
  while (k < n && inRange(text.charCodeAt(k), 0x30, 0x3f)) k++;
  while (k < n && inRange(text.charCodeAt(k), 0x20, 0x2f)) k++;
  return k < n && inRange(text.charCodeAt(k), 0x40, 0x7e) ? k + 1 : -1;
}

/** Smaller of two indexOf results, ignoring -1. */
function nearest(a: number, b: number): number {
  if (a < 0) return b;
  if (b < 0) return a;
  return Math.min(a, b);
}

/**
 * Remove ANSI escape sequences. Exactly the matches of Hermes' `_ANSI_ESCAPE_RE`, left to right:
 *
 *   \x1b( \[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]     CSI
 *        | \][\s\S]*?(\x07|\x1b\\)                  OSC (BEL or ST)
 *        | [PX^_][\s\S]*?\x1b\\                     DCS / SOS / PM / APC
 *        | [\x20-\x2f]+[\x30-\x7e]                  nF
 *        | [\x30-\x7e] )                            Fp / Fe / Fs
 *   | \x9b[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]        8-bit CSI
 *   | \x9d[\s\S]*?(\x07|\x9c)                       8-bit OSC
 *   | [\x80-\x9f]                                   other 8-bit C1
 *
 * An unterminated OSC/DCS opener therefore falls back to the two-character Fe form (`ESC ]`).
 */
export function stripAnsi(text: string): string {
  if (!text || !HAS_ESCAPE_RE.test(text)) return text;
  const n = text.length;
  const bel = new ForwardFinder(text, '\x07');
  const st = new ForwardFinder(text, '\x1b\\');
  const st8 = new ForwardFinder(text, '\x9c');
  const parts: string[] = [];
  let copyFrom = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    let end = -1;
    if (c === 0x1b) {
      if (i + 1 < n) {
        const d = text.charCodeAt(i + 1);
        if (d === 0x5b /* [ */) {
          end = csiEnd(text, i + 2);
          if (end < 0) end = i + 2; // falls back to Fe `ESC [`
        } else if (d === 0x5d /* ] */) {
          const b = bel.next(i + 2);
          const s = st.next(i + 2);
          const p = nearest(b, s);
          end = p < 0 ? i + 2 : p === b ? p + 1 : p + 2;
        } else if (d === 0x50 || d === 0x58 || d === 0x5e || d === 0x5f /* P X ^ _ */) {
          const s = st.next(i + 2);
          end = s < 0 ? i + 2 : s + 2;
        } else if (inRange(d, 0x20, 0x2f)) {
          let k = i + 2;
          while (k < n && inRange(text.charCodeAt(k), 0x20, 0x2f)) k++;
          if (k < n && inRange(text.charCodeAt(k), 0x30, 0x7e)) end = k + 1;
        } else if (inRange(d, 0x30, 0x7e)) {
          end = i + 2;
        }
      }
    } else if (c === 0x9b) {
      end = csiEnd(text, i + 1);
      if (end < 0) end = i + 1; // bare C1
    } else if (c === 0x9d) {
      const p = nearest(bel.next(i + 1), st8.next(i + 1));
      end = p < 0 ? i + 1 : p + 1;
    } else if (inRange(c, 0x80, 0x9f)) {
      end = i + 1;
    }
    if (end > i) {
      if (copyFrom < i) parts.push(text.slice(copyFrom, i));
      i = end;
      copyFrom = end;
    } else {
      i++;
    }
  }
  if (copyFrom === 0) return text;
  if (copyFrom < n) parts.push(text.slice(copyFrom));
  return parts.join('');
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

// ---------------------------------------------------------------------------------------------
// Bounded byte collector
// ---------------------------------------------------------------------------------------------

export const DEFAULT_TRANSPORT_CAP_BYTES = 1024 * 1024;

/** An append-only byte buffer that grows (doubling) up to a hard capacity. */
class GrowBuffer {
  buf: Buffer = Buffer.alloc(0);
  len = 0;
  constructor(private readonly cap: number) {}

  get free(): number {
    return this.cap - this.len;
  }

  append(src: Uint8Array, start: number, end: number): void {
    const need = this.len + (end - start);
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.min(this.cap, Math.max(need, this.buf.length * 2, 4096)));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    this.len += Buffer.from(src.buffer, src.byteOffset, src.byteLength).copy(this.buf, this.len, start, end);
  }
}

/**
 * A ring holding the last `cap` bytes written. Until it first fills it grows like GrowBuffer (small
 * outputs never allocate the whole window); from then on it is one fixed buffer.
 */
class TailRing {
  private buf: Buffer = Buffer.alloc(0);
  private start = 0;
  len = 0;
  constructor(private readonly cap: number) {}

  get allocated(): number {
    return this.buf.length;
  }

  write(src: Uint8Array): void {
    if (this.cap === 0 || src.length === 0) return;
    const data = Buffer.from(src.buffer, src.byteOffset, src.byteLength);
    if (data.length >= this.cap) {
      this.ensure(this.cap);
      data.copy(this.buf, 0, data.length - this.cap);
      this.start = 0;
      this.len = this.cap;
      return;
    }
    const wanted = this.len + data.length;
    if (wanted > this.buf.length) {
      // Still growing: contents are linear from 0 (the ring only wraps at full capacity).
      this.ensure(Math.min(this.cap, Math.max(wanted, this.buf.length * 2, 4096)));
    }
    const size = this.buf.length;
    let w = (this.start + this.len) % size;
    let off = 0;
    while (off < data.length) {
      const n = Math.min(data.length - off, size - w);
      data.copy(this.buf, w, off, off + n);
      off += n;
      w = (w + n) % size;
    }
    if (wanted > size) {
      this.start = (this.start + (wanted - size)) % size;
      this.len = size;
    } else {
      this.len = wanted;
    }
  }

  private ensure(size: number): void {
    if (this.buf.length >= size) return;
    const next = Buffer.allocUnsafe(size);
    this.copyOut(next);
    this.buf = next;
    this.start = 0;
  }

  /** Copy the held bytes, oldest first, into `target` at 0; returns the count. */
  private copyOut(target: Buffer): number {
    const size = this.buf.length;
    if (this.len === 0) return 0;
    const first = Math.min(this.len, size - this.start);
    this.buf.copy(target, 0, this.start, this.start + first);
    if (first < this.len) this.buf.copy(target, first, 0, this.len - first);
    return this.len;
  }

  bytes(): Buffer {
    const out = Buffer.allocUnsafe(this.len);
    this.copyOut(out);
    return out;
  }
}

/** Index at which `buf` ends once an incomplete trailing UTF-8 sequence is removed. */
function endOfCompleteUtf8(buf: Buffer): number {
  const len = buf.length;
  for (let i = len - 1; i >= 0 && i >= len - 4; i--) {
    const b = buf[i]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for its lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + need > len ? i : len;
  }
  return len; // no lead byte nearby: not a cut sequence, leave it to the decoder
}

/** Number of stray continuation bytes (at most 3: the rest of a cut sequence) opening `buf`. */
function strayContinuationBytes(buf: Buffer): number {
  let i = 0;
  while (i < 3 && i < buf.length && (buf[i]! & 0xc0) === 0x80) i++;
  return i;
}

export interface BoundedCollectorOptions {
  /** Bytes kept at most (head + tail). Default 1 MiB, the gateway's per-stream transport cap. */
  maxBytes?: number;
  /** Share of `maxBytes` kept from the start; the rest is the rolling tail. Default 0.4. */
  headRatio?: number;
}

export interface CollectedOutput {
  /** UTF-8 text: everything, or head + truncation notice + tail. */
  text: string;
  truncated: boolean;
  /** Bytes pushed in total. */
  totalBytes: number;
  /** Bytes represented in `text` (head + tail, after trimming sequences cut at the seams). */
  keptBytes: number;
  /** totalBytes - keptBytes. */
  omittedBytes: number;
}

/**
 * Accumulates a byte stream, keeping its first `headRatio` share of `maxBytes` and a rolling window
 * of its last bytes (Hermes `_drain_head_tail`). Storage never exceeds `maxBytes` whatever is
 * pushed: chunks are copied in, never retained.
 */
export class BoundedCollector {
  readonly maxBytes: number;
  readonly headCap: number;
  readonly tailCap: number;
  private readonly head: GrowBuffer;
  private readonly tail: TailRing;
  private total = 0;

  constructor(options: BoundedCollectorOptions = {}) {
    const maxBytes = options.maxBytes ?? DEFAULT_TRANSPORT_CAP_BYTES;
    const headRatio = options.headRatio ?? 0.4;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new RangeError('maxBytes must be a positive integer');
    if (!(headRatio >= 0 && headRatio <= 1)) throw new RangeError('headRatio must be within [0, 1]');
    this.maxBytes = maxBytes;
    this.headCap = Math.trunc(maxBytes * headRatio); // Hermes: int(MAX_STDOUT_BYTES * 0.4)
    this.tailCap = maxBytes - this.headCap;
    this.head = new GrowBuffer(this.headCap);
    this.tail = new TailRing(this.tailCap);
  }

  /** Add bytes (a string is taken as UTF-8). */
  push(chunk: Uint8Array | string): void {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (data.length === 0) return;
    this.total += data.length;
    let start = 0;
    const free = this.head.free;
    if (free > 0) {
      start = Math.min(free, data.length);
      this.head.append(data, 0, start);
    }
    if (start < data.length) this.tail.write(data.subarray(start));
  }

  get totalBytes(): number {
    return this.total;
  }

  /** More bytes were pushed than are kept. */
  get truncated(): boolean {
    return this.total > this.maxBytes;
  }

  /** Bytes of storage currently allocated (the memory bound: never above maxBytes). */
  get allocatedBytes(): number {
    return this.head.buf.length + this.tail.allocated;
  }

  /**
   * The collected text. When truncated, a UTF-8 sequence cut at either seam is dropped (counted as
   * omitted) instead of decoding to U+FFFD, and the Hermes notice joins head and tail.
   * `thousands` defaults to true: Hermes' execute_code notice groups digits (`{n:,}`).
   */
  result(options: NoticeOptions = {}): CollectedOutput {
    const head = this.head.buf.subarray(0, this.head.len);
    const tail = this.tail.bytes();
    if (!this.truncated) {
      const all = tail.length ? Buffer.concat([head, tail]) : head;
      return { text: all.toString('utf8'), truncated: false, totalBytes: this.total, keptBytes: this.total, omittedBytes: 0 };
    }
    const headEnd = endOfCompleteUtf8(head);
    const tailStart = strayContinuationBytes(tail);
    const kept = headEnd + (tail.length - tailStart);
    const omitted = this.total - kept;
    const text =
      head.subarray(0, headEnd).toString('utf8') +
      truncationNotice(omitted, this.total, { thousands: options.thousands ?? true }) +
      tail.subarray(tailStart).toString('utf8');
    return { text, truncated: true, totalBytes: this.total, keptBytes: kept, omittedBytes: omitted };
  }
}
