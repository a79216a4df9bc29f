import { open, type FileHandle } from 'node:fs/promises';
import { decodeLenient, READ_FLAGS, throwIfAborted } from '../common/index.js';
import type { WalkBudget } from './walk.js';
import { monotonicMs } from '../../../../shared/clock.js';

// Searching one file's lines for search_files' content target (search/content.ts): rg's encoding
// sniffing, its binary rule, its line splitting, and what Hermes shows of a matching line.

/** Files up to this size are read whole to be searched; larger ones are streamed (scanFile). */
export const SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024;
const CONTENT_CLAMP = 500;
const STREAM_CHUNK = 1024 * 1024;

/** What one file's scan found: how many lines match, and the first lines to show (matches and their context). */
export interface FileScan {
  matched: number;
  shown: Array<{ line: number; content: string }>;
}

/**
 * rg's encoding sniffing: a UTF-8 byte-order mark is dropped, and a UTF-16 one (LE or BE) makes the
 * file UTF-16 text, transcoded and searched (its NUL bytes are not binary then).
 */
export function sniffEncoding(head: Uint8Array): { encoding: 'utf-8' | 'utf-16le' | 'utf-16be'; bom: number } {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bom: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: 2 };
  return { encoding: 'utf-8', bom: 0 };
}

/**
 * Scans one file: null when it is skipped (binary — a NUL byte, as rg decides —, unreadable, not a
 * regular file). Its encoding is sniffed from a byte-order mark as rg does (sniffEncoding). A file up to SEARCH_MAX_FILE_BYTES is read whole; a larger one is streamed, a
 * chunk at a time, keeping only `context` lines back, so any size is searched (as rg searches it)
 * within the search's deadline. `keep` bounds the lines collected to show.
 */
export async function scanFile(abs: string, re: RegExp, context: number, keep: number, budget: WalkBudget, signal?: AbortSignal, multiline?: RegExp): Promise<FileScan | null> {
  let handle: FileHandle;
  try {
    handle = await open(abs, READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return null;
    if (st.size <= SEARCH_MAX_FILE_BYTES) {
      const bytes = await handle.readFile();
      const { encoding, bom } = sniffEncoding(bytes);
      if (encoding === 'utf-8' && bytes.includes(0)) return null;
      const body = bytes.subarray(bom);
      const text = encoding === 'utf-8' ? decodeLenient(body) : new TextDecoder(encoding, { fatal: false }).decode(body);
      const lines = splitFileLines(text);
      const matched = multiline ? multilineMatchingLines(text, multiline, lines.length) : matchingLines(lines, re);
      const shown = withContext(matched, context, lines.length).slice(0, keep);
      return { matched: matched.length, shown: shown.map((l) => ({ line: l + 1, content: shownLine(lines[l]!) })) };
    }
    // A multiline match may span chunks: files past SEARCH_MAX_FILE_BYTES are not searched across lines.
    if (multiline) return null;
    return await scanStream(handle, re, context, keep, budget, signal);
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}


/**
 * A file past SEARCH_MAX_FILE_BYTES, streamed a chunk at a time, keeping only `context` lines back;
 * null when a NUL byte makes a UTF-8 one binary. Stops (with `search_timeout`) at the budget's deadline.
 */
async function scanStream(handle: FileHandle, re: RegExp, context: number, keep: number, budget: WalkBudget, signal?: AbortSignal): Promise<FileScan | null> {
  const buffer = Buffer.alloc(STREAM_CHUNK);
  let decoder: TextDecoder | undefined;
  let utf8 = true;
  const out: FileScan = { matched: 0, shown: [] };
  const before: Array<{ line: number; text: string }> = [];
  let after = 0;
  let lineNo = 0;
  let carry = '';
  const take = (line: number, text: string) => {
    if (out.shown.length < keep) out.shown.push({ line, content: shownLine(text) });
  };
  const onLine = (text: string) => {
    lineNo++;
    if (re.test(text)) {
      out.matched++;
      for (const b of before.splice(0)) take(b.line, b.text);
      take(lineNo, text);
      after = context;
    } else if (after > 0) {
      take(lineNo, text);
      after--;
    } else if (context > 0) {
      before.push({ line: lineNo, text });
      if (before.length > context) before.shift();
    }
  };
  for (;;) {
    throwIfAborted(signal, 'search_files');
    if (monotonicMs() > budget.deadline) {
      budget.limitReason = 'search_timeout';
      break;
    }
    const { bytesRead } = await handle.read(buffer, 0, STREAM_CHUNK, null);
    if (bytesRead === 0) break;
    let chunk = buffer.subarray(0, bytesRead);
    if (!decoder) {
      const { encoding, bom } = sniffEncoding(chunk);
      decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });
      utf8 = encoding === 'utf-8';
      chunk = chunk.subarray(bom);
    }
    if (utf8 && chunk.includes(0)) return null;
    const parts = (carry + decoder.decode(chunk, { stream: true })).split('\n');
    carry = parts.pop()!;
    for (const part of parts) onLine(part);
  }
  carry += decoder?.decode() ?? '';
  if (carry !== '') onLine(carry);
  return out;
}

/** The file's lines as rg sees them: split at `\n` only, so a CRLF line keeps its `\r` (and `two$` does not match `two\r`). */
export function splitFileLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A line as Hermes shows it: without a CRLF's `\r`, clamped to 500 characters (code points, as Python slices). */
export function shownLine(line: string): string {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.length <= CONTENT_CLAMP) return text;
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n++ === CONTENT_CLAMP) break;
    out += ch;
  }
  return out;
}

/** 0-based indices of the lines that match. */
function matchingLines(lines: string[], re: RegExp): number[] {
  const out: number[] = [];
  for (let i = 0; i < lines.length; i++) if (re.test(lines[i]!)) out.push(i);
  return out;
}

/**
 * rg --multiline: every line a match of the global `re` over the whole text touches (0-based,
 * in order), a match that spans lines reporting each of them.
 */
export function multilineMatchingLines(text: string, re: RegExp, lineCount: number): number[] {
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (at: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const hit = new Set<number>();
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const first = lineOf(m.index);
    const last = lineOf(m.index + Math.max(m[0].length, 1) - 1);
    for (let l = first; l <= last && l < lineCount; l++) hit.add(l);
    if (m[0].length === 0) re.lastIndex++;
  }
  return [...hit].sort((a, b) => a - b);
}

/** Matching lines plus `context` lines around them, merged, in file order. */
export function withContext(matched: number[], context: number, lineCount: number): number[] {
  if (context <= 0) return matched;
  const out: number[] = [];
  let next = 0;
  for (const m of matched) {
    for (let l = Math.max(next, m - context); l <= Math.min(lineCount - 1, m + context); l++) out.push(l);
    next = Math.max(next, Math.min(lineCount, m + context + 1));
  }
  return out;
}
