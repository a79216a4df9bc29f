import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, readdir, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { similarity } from './sequence-matcher.js';

// File-system helpers shared by the file tools: binary detection, bounded whole-file reads,
// atomic writes, "did you mean" suggestions, BOM/line-ending preservation and per-path locks.

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

function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

export function isNotFound(e: unknown): boolean {
  const code = errnoOf(e);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A read that failed for another reason than a missing file. */
export function readFailed(input: string, e: unknown): GatewayError {
  const code = errnoOf(e);
  if (code === 'EACCES' || code === 'EPERM') {
    return new GatewayError(ErrorCode.FILE_BLOCKED, `Cannot read '${input}': permission denied.`, { reason: 'permission', errno: code });
  }
  return new GatewayError(ErrorCode.INTERNAL_ERROR, `Failed to read file: ${input}: ${(e as Error)?.message ?? String(e)}`, code ? { errno: code } : undefined);
}

export function notRegularError(input: string): GatewayError {
  return new GatewayError(
    ErrorCode.FILE_NOT_REGULAR,
    `Cannot read '${input}': not a regular file (directory, FIFO, socket, or device). Reading it could block indefinitely.`,
  );
}

// ---------------------------------------------------------------------------------------------
// "File not found" suggestions (Hermes `_suggest_similar_files`)

/** How `similarFiles` scores, as the Hermes followed does. */
export interface SimilarityRules {
  /** A name scoring nothing else but spelled nearly the same (difflib ratio >= 0.8) scores 50 (Hermes after 0.19). */
  nearMiss?: boolean;
}

/**
 * Up to five names from the same directory that look like `displayPath`'s file name, best first,
 * by Hermes' rules only (same stem, prefix, substring, shared characters with the same extension,
 * and with `nearMiss` a near-miss spelling). Like `ls -1 | head -50`: dot-files are not listed and
 * only the first 50 names are scored.
 */
async function similarFiles(displayPath: string, absolutePath: string, rules: SimilarityRules = {}): Promise<string[]> {
  const dirShown = dirname(displayPath);
  const fileName = basename(displayPath);
  const lower = fileName.toLowerCase();
  const ext = extname(fileName).toLowerCase();
  const stem = basename(fileName, extname(fileName)).toLowerCase();
  let names: string[];
  try {
    names = (await readdir(dirname(absolutePath))).filter((n) => !n.startsWith('.')).sort().slice(0, 50);
  } catch {
    return [];
  }
  const scored: Array<[number, string]> = [];
  for (const name of names) {
    const lf = name.toLowerCase();
    let score = 0;
    if (lf === lower) score = 100;
    else if (basename(lf, extname(lf)) === stem) score = 90;
    else if (lf.startsWith(lower) || lower.startsWith(lf)) score = 70;
    else if (lf.includes(lower)) score = 60;
    else if (lower.includes(lf) && lf.length > 2) score = 40;
    else if (ext && extname(lf) === ext) {
      const common = [...new Set(lower)].filter((c) => lf.includes(c)).length;
      if (common >= Math.max(lower.length, lf.length) * 0.4) score = 30;
    }
    if (score === 0 && rules.nearMiss === true && similarity(lower, lf, NEAR_MISS_RATIO) >= NEAR_MISS_RATIO) score = 50;
    if (score > 0) scored.push([score, dirShown === '.' && !displayPath.startsWith('.//') ? name : join(dirShown, name)]);
  }
  // Stable sort by score only, like Python's `sort(key=-score)`.
  return scored.sort((a, b) => b[0] - a[0]).slice(0, 5).map(([, p]) => p);
}

/** Hermes' near-miss spelling threshold (`difflib.SequenceMatcher(None, a, b).ratio() >= 0.8`). */
const NEAR_MISS_RATIO = 0.8;

/** Hermes' "File not found: <input>" with its similar names; `where` (confine.ts whereLooked) is appended to the text. */
export async function notFoundError(input: string, absolutePath: string, rules: SimilarityRules = {}, where = ''): Promise<GatewayError> {
  return new GatewayError(ErrorCode.FILE_NOT_FOUND, `File not found: ${input}${where}`, { similar_files: await similarFiles(input, absolutePath, rules) });
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

// ---------------------------------------------------------------------------------------------
// Directory creation and atomic writes

/** mkdir -p that reports the directories it created (deepest last), for rollback. */
export async function ensureParentDirs(absolutePath: string): Promise<string[]> {
  const parent = dirname(absolutePath);
  const first = await mkdir(parent, { recursive: true });
  if (first === undefined) return [];
  const created: string[] = [];
  for (let d = parent; ; d = dirname(d)) {
    created.unshift(d);
    if (d === first || dirname(d) === d) break;
  }
  return created;
}

export async function removeCreatedDirs(created: readonly string[]): Promise<void> {
  for (const d of [...created].reverse()) await rmdir(d).catch(() => undefined);
}

/**
 * Atomic replace: a temp file in the target's own directory (same file system), fsync, rename over
 * the target, fsync the directory. An existing target keeps its permission bits (`mode`); a new
 * file gets the process umask's default. The temp file never outlives a failure.
 */
export async function atomicWrite(target: string, data: Uint8Array, mode?: number): Promise<void> {
  const dir = dirname(target);
  const tmp = join(dir, `.hermes-tmp.${randomBytes(8).toString('hex')}`);
  const handle = await open(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0), 0o666);
  try {
    try {
      await handle.writeFile(data);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  try {
    const dh = await open(dir, fsConstants.O_RDONLY);
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    // best effort: some file systems refuse fsync on directories
  }
}

export function writeFailed(input: string, e: unknown): GatewayError {
  const code = errnoOf(e);
  return new GatewayError(ErrorCode.FILE_WRITE_FAILED, `Failed to write file: ${input}: ${(e as Error)?.message ?? String(e)}`, code ? { errno: code } : undefined);
}

// Per-path locks (Hermes `file_state.lock_path`): concurrent writers to one file are serialised
// within this process (paths are the keys of the shared keyed lock).
export { withKeyedLocks as withPathLocks } from '../../../shared/keyed-lock.js';
