import { constants as fsConstants } from 'node:fs';
import { extname } from 'node:path';

// What kind of file a path holds, as Hermes tells it: binary by extension
// (tools/binary_extensions.py) or by the bytes of its head, and how a refusal names it; a document
// read_file renders as text (tools/read_extract.py), by extension; and the lenient UTF-8 decoding
// every text read uses.

/** O_NONBLOCK keeps open() of a FIFO from waiting for a writer; fstat then refuses it. */
export const READ_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

// tools/binary_extensions.py
const BINARY_EXTENSIONS = new Set([
  '.png', '.jpg', '.jpeg', '.gif', '.bmp', '.ico', '.webp', '.tiff', '.tif',
  '.mp4', '.mov', '.avi', '.mkv', '.webm', '.wmv', '.flv', '.m4v', '.mpeg', '.mpg',
  '.mp3', '.wav', '.ogg', '.flac', '.aac', '.m4a', '.wma', '.aiff', '.opus',
  '.zip', '.tar', '.gz', '.bz2', '.7z', '.rar', '.xz', '.z', '.tgz', '.iso',
  '.exe', '.dll', '.so', '.dylib', '.bin', '.o', '.a', '.obj', '.lib', '.app', '.msi', '.deb', '.rpm',
  '.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods', '.odp',
  '.ttf', '.otf', '.woff', '.woff2', '.eot',
  '.pyc', '.pyo', '.class', '.jar', '.war', '.ear', '.node', '.wasm', '.rlib',
  '.sqlite', '.sqlite3', '.db', '.mdb', '.idx',
  '.psd', '.ai', '.eps', '.sketch', '.fig', '.xd', '.blend', '.3ds', '.max',
  '.swf', '.fla',
  '.lockb', '.dat', '.data',
]);

export function fileExtension(p: string): string {
  return extname(p).toLowerCase();
}

export function hasBinaryExtension(p: string): boolean {
  return BINARY_EXTENSIONS.has(fileExtension(p));
}

// Documents read_file renders as text: notebooks, Word and Excel (read/extract/), as Hermes after
// 0.19 also SQLite databases and, through Hermes' own extractor, its anydoc formats (read/document.ts).
const OFFICE_EXTENSIONS = new Set(['.ipynb', '.docx', '.xlsx']);
export const SQLITE_EXTENSIONS: ReadonlySet<string> = new Set(['.db', '.sqlite', '.sqlite3']);
/** Hermes' ANYDOC_EXTENSIONS: what its extractor converts with firecrawl-anydoc (after 0.19). */
export const ANYDOC_EXTENSIONS: ReadonlySet<string> = new Set([
  '.doc', '.docm', '.ppt', '.pps', '.pot', '.pptx', '.pptm', '.ppsx', '.ppsm',
  '.xls', '.xlsm', '.xlsb', '.odt', '.ods', '.odp', '.rtf', '.epub', '.pdf',
]);
/** The largest document rendered (upstream's MAX_DOCUMENT_BYTES). */

export interface DocumentRules {
  /** Code cells' outputs after them, a byte-order mark dropped (after 0.19). */
  notebookOutputs: boolean;
  /** Ruby guides (w:rt) and phonetic runs (rPh) are not text (after 0.19). */
  phoneticSkipped: boolean;
  /** .db/.sqlite/.sqlite3 are documents (after 0.19). */
  sqlite: boolean;
  /** Hermes' anydoc formats are documents, rendered by Hermes' own extractor (after 0.19). */
  anydoc: boolean;
}

/** What the rendering needs besides the bytes. */
/** Whether `path` is a document (by its extension) for the Hermes followed. */
export function isExtractableDocument(path: string, rules: DocumentRules): boolean {
  const ext = fileExtension(path);
  return OFFICE_EXTENSIONS.has(ext) || (rules.sqlite && SQLITE_EXTENSIONS.has(ext)) || (rules.anydoc && ANYDOC_EXTENSIONS.has(ext));
}

/**
 * The document's text (every line ending in "\n"); `bytes` is the whole file. CPU-bound (a workbook
 * may hold 64 MiB of XML per sheet): read_file runs it on the CPU pool (read/extract/task.ts).
 * The anydoc formats are not rendered here (read/document.ts asks Hermes).
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF8_LENIENT = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

function decodesAsUtf8(bytes: Uint8Array): boolean {
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Hermes `_is_likely_binary_bytes`: text iff valid UTF-8 without NUL bytes, tolerating one
 * incomplete multi-byte sequence at the very end (an artifact of cutting the sample).
 */
export function isLikelyBinaryBytes(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  if (sample.includes(0)) return true;
  if (decodesAsUtf8(sample)) return false;
  for (let cut = 1; cut <= 3 && cut < sample.length; cut++) {
    if (decodesAsUtf8(sample.subarray(0, sample.length - cut))) return false;
  }
  return true;
}

const MAGIC_SIGNATURES: ReadonlyArray<readonly [Buffer, string]> = [
  [Buffer.from('89504e470d0a1a0a', 'hex'), 'PNG image data'],
  [Buffer.from('ffd8ff', 'hex'), 'JPEG image data'],
  [Buffer.from('GIF87a'), 'GIF image data'],
  [Buffer.from('GIF89a'), 'GIF image data'],
  [Buffer.from('RIFF'), 'RIFF container (WAV/AVI/WebP family)'],
  [Buffer.from('%PDF-'), 'PDF document'],
  [Buffer.from('504b0304', 'hex'), 'ZIP archive (also docx/xlsx/jar/apk)'],
  [Buffer.from('504b0506', 'hex'), 'ZIP archive (empty)'],
  [Buffer.from('1f8b', 'hex'), 'gzip compressed data'],
  [Buffer.from('BZh'), 'bzip2 compressed data'],
  [Buffer.from('fd377a585a00', 'hex'), 'xz compressed data'],
  [Buffer.from('377abcaf271c', 'hex'), '7-Zip archive'],
  [Buffer.from('7f454c46', 'hex'), 'ELF executable'],
  [Buffer.from('MZ'), 'Windows PE executable'],
  [Buffer.from('cffaedfe', 'hex'), 'Mach-O executable (64-bit)'],
  [Buffer.from('cafebabe', 'hex'), 'Mach-O universal binary / Java class'],
  [Buffer.from('SQLite format 3\0'), 'SQLite database'],
  [Buffer.from('OggS'), 'Ogg container'],
  [Buffer.from('fLaC'), 'FLAC audio'],
  [Buffer.from('ID3'), 'MP3 audio (ID3 tag)'],
  [Buffer.from('000000', 'hex'), 'ISO media container (MP4/MOV family)'],
  [Buffer.from('BM'), 'BMP image data'],
  [Buffer.from('49492a00', 'hex'), 'TIFF image data (little-endian)'],
  [Buffer.from('4d4d002a', 'hex'), 'TIFF image data (big-endian)'],
];

function identifyBinary(sample: Buffer): string {
  for (const [prefix, name] of MAGIC_SIGNATURES) {
    if (sample.subarray(0, prefix.length).equals(prefix)) {
      if (name.startsWith('ISO media') && sample.subarray(4, 8).toString('latin1') !== 'ftyp') continue;
      return name;
    }
  }
  return 'unknown binary';
}

function humanSize(size: number): string {
  if (size >= 1024 * 1024) return `${(size / (1024 * 1024)).toFixed(1)} MB`;
  if (size >= 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${size} bytes`;
}

/** Hermes `describe_binary_file`: "Binary file (PNG image data, 4.1 KB) — cannot display as text." */
export function describeBinaryFile(sample: Buffer, size: number): string {
  return `Binary file (${identifyBinary(sample)}, ${humanSize(size)}) — cannot display as text.`;
}

export function decodeLenient(bytes: Uint8Array): string {
  return UTF8_LENIENT.decode(bytes);
}
