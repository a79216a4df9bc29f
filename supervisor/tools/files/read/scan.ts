import { close, closeSync, fstat, fstatSync, open, openSync, read, readSync, stat, statSync, type Stats } from 'node:fs';
import { decodeLenient } from '../common/index.js';

// read_file's scan of a file: one chunked pass within the per-call byte budget that counts its
// lines and keeps the requested window, each line clamped (`cut -b1-N` upstream) and decoded, its
// first chunk also serving the binary sniff. read/index.ts turns the page into Hermes' answer.

/** `tool_output.max_line_length`. */
export const MAX_LINE_LENGTH = 2000;

/** Per-line byte clamp while scanning (`cut -b1-N` upstream): enough bytes for 2000 code points. */
const LINE_CLAMP_BYTES = 4 * MAX_LINE_LENGTH + 1;
/** The largest read of one scan step. */
const CHUNK_BYTES = 1 << 20;
/** Full-size scan buffers kept for reuse between calls. */
const SPARE_CHUNKS_KEPT = 4;

/**
 * Bytes to read per scan step: the file's size as fstat saw it plus one (a file that shrank since
 * ends early, one that is empty by fstat, as procfs files are, is still read), within the scan
 * budget and CHUNK_BYTES. A 6-byte file gets a 7-byte buffer, not a zero-filled mebibyte.
 */
export function scanChunkBytes(fileSize: number, maxBytes: number): number {
  return Math.max(1, Math.min(CHUNK_BYTES, maxBytes, fileSize + 1));
}

const spareChunks: Buffer[] = [];

/** Node's shared allocation pool serves Buffer.allocUnsafe up to this size without a new allocation. */
const POOLED_BYTES = Buffer.poolSize >>> 1;

/**
 * A scan buffer for reads of `size` bytes. Only the bytes a read filled are ever looked at, so it
 * is not zeroed: a small one is a slice of Node's shared pool, a larger one a reused full-size
 * spare (one allocation per concurrent large read over the process's life, not one per call).
 */
function takeChunk(size: number): Buffer {
  if (size <= POOLED_BYTES) return Buffer.allocUnsafe(size);
  return spareChunks.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
}

function giveBack(buffer: Buffer): void {
  if (buffer.length === CHUNK_BYTES && spareChunks.length < SPARE_CHUNKS_KEPT) spareChunks.push(buffer);
}

export interface Page {
  /** Lines offset..end that exist, byte-clamped and decoded, without terminators. */
  lines: string[];
  /** Lines in the file (a final line without a newline counts), or those seen before the budget ran out. */
  totalLines: number;
  /** Bytes read before the budget stopped the scan short of the end, or null when the whole file was scanned. */
  stoppedAt: number | null;
}

/** Bytes of the file's head that the binary sniff looks at (Hermes reads 1000). */
export const SNIFF_BYTES = 1000;

// The file's I/O goes through a descriptor, one of two ways. Through the thread pool with the
// callback API (per call, a FileHandle and the promise API cost about twice its CPU), or, on a
// local disk or memory file system (access/real-path.ts), inline on the event loop: there each call takes
// microseconds, while a thread-pool round trip cost more than the rest of read_file on a busy host.
// Only the reads of a file of at most `readFileInlineMaxBytes` are inline (its fstat size: the scan
// never reads past it), so a large file never holds the event loop for its whole scan.

export interface ReadIo {
  stat(path: string): Promise<Stats>;
  open(path: string, flags: number): Promise<number>;
  fstat(fd: number): Promise<Stats>;
  read(fd: number, buffer: Buffer, length: number, position: number): Promise<number>;
  /** Closed without waiting: nothing of the answer depends on it, and a close of a read-only descriptor has nothing to report. */
  close(fd: number): void;
}

export const POOLED: ReadIo = {
  stat: (path) => new Promise((resolve, reject) => stat(path, (e, st) => (e ? reject(e) : resolve(st)))),
  open: (path, flags) => new Promise((resolve, reject) => open(path, flags, (e, fd) => (e ? reject(e) : resolve(fd)))),
  fstat: (fd) => new Promise((resolve, reject) => fstat(fd, (e, st) => (e ? reject(e) : resolve(st)))),
  read: (fd, buffer, length, position) => new Promise((resolve, reject) => read(fd, buffer, 0, length, position, (e, bytesRead) => (e ? reject(e) : resolve(bytesRead)))),
  close: (fd) => close(fd, () => undefined),
};

/** The same calls, inline (their errors still arrive as rejections). */
export const INLINE: ReadIo = {
  stat: async (path) => statSync(path),
  open: async (path, flags) => openSync(path, flags),
  fstat: async (fd) => fstatSync(fd),
  read: async (fd, buffer, length, position) => readSync(fd, buffer, 0, length, position),
  close: (fd) => {
    try {
      closeSync(fd);
    } catch {
      // nothing to report (as POOLED.close)
    }
  },
};

/**
 * One scan of the file, as its fstat size said at open (`fileSize`), within `maxBytes`. The first
 * chunk read also serves `sniff` (the binary check, which throws): no separate read of the head.
 */
export async function scanPage(io: ReadIo, fd: number, offset: number, endLine: number, maxBytes: number, fileSize: number, sniff: (head: Buffer) => void): Promise<Page> {
  const buffer = takeChunk(scanChunkBytes(fileSize, maxBytes));
  try {
    return await scanInto(io, buffer, fd, offset, endLine, maxBytes, fileSize, sniff);
  } finally {
    giveBack(buffer);
  }
}

/**
 * One chunked pass of at most `maxBytes`: counts lines and keeps the requested window (never a
 * whole huge line). A line that ends in the chunk it starts in is decoded straight from the scan
 * buffer; only one that spans chunks is copied out, piece by piece, before the buffer is reused.
 */
async function scanInto(io: ReadIo, buffer: Buffer, fd: number, offset: number, endLine: number, maxBytes: number, fileSize: number, sniff: (head: Buffer) => void): Promise<Page> {
  const lines: string[] = [];
  let newlines = 0;
  let lineno = 1;
  let kept: Buffer[] = [];
  let keptLen = 0;
  let partial = false;
  let position = 0;
  let stoppedAt: number | null = null;
  for (;;) {
    // The file as fstat saw it at open is what is shown (a zero size, as procfs reports, is read to its end).
    if (fileSize > 0 && position >= fileSize) break;
    if (position >= maxBytes) {
      // Out of budget: stop unless the file really ends here.
      if ((await io.read(fd, buffer, 1, position)) > 0) stoppedAt = position;
      break;
    }
    const bytesRead = await io.read(fd, buffer, Math.min(buffer.length, maxBytes - position), position);
    if (position === 0) sniff(buffer.subarray(0, Math.min(SNIFF_BYTES, bytesRead)));
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    if (lineno > endLine) {
      // Past the window: only the line count and whether the last line is open matter.
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
      partial = chunk[chunk.length - 1] !== 10;
      continue;
    }
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(10, pos);
      const inPage = lineno >= offset && lineno <= endLine;
      const stop = nl === -1 ? chunk.length : nl;
      const take = inPage ? Math.min(stop, pos + Math.max(0, LINE_CLAMP_BYTES - keptLen)) : pos;
      if (inPage && nl !== -1 && kept.length === 0) {
        lines.push(decodeLenient(chunk.subarray(pos, take)));
      } else if (take > pos) {
        kept.push(Buffer.from(chunk.subarray(pos, take)));
        keptLen += take - pos;
      }
      if (nl === -1) {
        partial = true;
        break;
      }
      if (inPage && kept.length > 0) lines.push(decodeLenient(Buffer.concat(kept)));
      kept = [];
      keptLen = 0;
      partial = false;
      newlines++;
      lineno++;
      pos = nl + 1;
    }
  }
  if (partial && lineno >= offset && lineno <= endLine) lines.push(decodeLenient(Buffer.concat(kept)));
  return { lines, totalLines: newlines + (partial ? 1 : 0), stoppedAt };
}
