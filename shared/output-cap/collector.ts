// The bounded byte collector of shared/output-cap.ts.

import { type NoticeOptions, truncationNotice } from './head-tail.js';

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
