import { open, type FileHandle } from 'node:fs/promises';
import { redactDeep } from '../../../shared/redact.js';
import { decodeLenient, READ_FLAGS } from './fs-util.js';
import { throwIfAborted } from './paths.js';
import { isBlockedDevicePath, isSecretBearingFile, readBlockMessage } from './sensitive-paths.js';
import { globMatcher, rootFiles, type SearchPage, type SearchScope, type SearchTally, type WalkBudget } from './search-walk.js';
import { LINE_ORIENTED_WARNING, compileSearchRegex, patternHasRegexNewline } from './search-regex.js';

// search_files target "content": a RegExp over the lines of every searchable file the walk yields
// (search-files.ts describes the tool; search-regex.ts turns the pattern into that RegExp).

/** Files up to this size are read whole to be searched; larger ones are streamed (scanFile). */
export const SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024;
const CONTENT_CLAMP = 500;

export interface SearchMatch {
  path: string;
  line: number;
  content: string;
}

/** What one file's scan found: how many lines match, and the first lines to show (matches and their context). */
interface FileScan {
  matched: number;
  shown: Array<{ line: number; content: string }>;
}

const STREAM_CHUNK = 1024 * 1024;

/**
 * rg's encoding sniffing: a UTF-8 byte-order mark is dropped, and a UTF-16 one (LE or BE) makes the
 * file UTF-16 text, transcoded and searched (its NUL bytes are not binary then).
 */
function sniffEncoding(head: Uint8Array): { encoding: 'utf-8' | 'utf-16le' | 'utf-16be'; bom: number } {
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
async function scanFile(abs: string, re: RegExp, context: number, keep: number, budget: WalkBudget, signal?: AbortSignal): Promise<FileScan | null> {
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
      const lines = splitFileLines(encoding === 'utf-8' ? decodeLenient(body) : new TextDecoder(encoding, { fatal: false }).decode(body));
      const matched = matchingLines(lines, re);
      const shown = withContext(matched, context, lines.length).slice(0, keep);
      return { matched: matched.length, shown: shown.map((l) => ({ line: l + 1, content: shownLine(lines[l]!) })) };
    }
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
      if (Date.now() > budget.deadline) {
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
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The file's lines as rg sees them: split at `\n` only, so a CRLF line keeps its `\r` (and `two$` does not match `two\r`). */
function splitFileLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A line as Hermes shows it: without a CRLF's `\r`, clamped to 500 characters (code points, as Python slices). */
function shownLine(line: string): string {
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

/** Matching lines plus `context` lines around them, merged, in file order. */
function withContext(matched: number[], context: number, lineCount: number): number[] {
  if (context <= 0) return matched;
  const out: number[] = [];
  let next = 0;
  for (const m of matched) {
    for (let l = Math.max(next, m - context); l <= Math.min(lineCount - 1, m + context); l++) out.push(l);
    next = Math.max(next, Math.min(lineCount, m + context + 1));
  }
  return out;
}

interface ContentQuery {
  pattern: string;
  outputMode: string;
  context: number;
  fileGlob: string | null;
}

/** Content search; sets `total_count` and `matches` / `files` / `counts` on `result`. */
export async function searchContent(
  scope: SearchScope,
  { pattern, outputMode, context, fileGlob }: ContentQuery,
  { offset, limit }: SearchPage,
  result: Record<string, unknown>,
  warnings: string[],
): Promise<SearchTally> {
  const { root, budget, dirs, signal } = scope;
  let omitted = 0;
  let omittedMatches = 0; // count mode: the omitted files' matching lines
  let truncated = false;
  let lowerBound = false;
  if (patternHasRegexNewline(pattern)) {
    // Hermes runs rg line-oriented: a newline in the regex finds nothing (rg refuses it), and says why.
    result.total_count = 0;
    warnings.push(LINE_ORIENTED_WARNING);
    return { omitted, truncated, lowerBound };
  }
  const re = compileSearchRegex(pattern);
  const globOk = fileGlob ? globMatcher(fileGlob) : null;
  const want = offset + limit; // stop once one more entry than the page exists
  // Each entry remembers whether its file is secret-bearing: its redaction mode (Hermes classifies every hit's path).
  const entries: Array<SearchMatch & { secretFile: boolean }> = [];
  const files: string[] = [];
  const counts: Array<[string, number]> = [];
  // rg's --glob is an override: a file it names is searched even when hidden or ignored.
  const whitelist = fileGlob && !fileGlob.startsWith('!') && globOk ? globOk : undefined;
  scan: for await (const f of await rootFiles(root, budget, signal, { whitelist })) {
    throwIfAborted(signal, 'search_files');
    if (budget.limitReason) break; // a large file's scan ran out of time (search-files.ts reports it)
    if (globOk && !root.isFile && !globOk(f.rel)) continue;
    if (isBlockedDevicePath(f.checked.lexical) || isBlockedDevicePath(f.checked.real)) continue; // e.g. /proc/<pid>/maps in a walk of /proc
    const found = await scanFile(f.abs, re, context, outputMode === 'content' ? want + 1 - entries.length : 0, budget, signal);
    if (found === null || found.matched === 0) continue;
    const blocked = readBlockMessage(f.checked, f.display, dirs) !== null;
    if (outputMode === 'content') {
      if (blocked) {
        omitted += found.shown.length;
        continue;
      }
      const secretFile = isSecretBearingFile(f.checked, dirs);
      for (const { line, content } of found.shown) {
        entries.push({ path: f.display, line, content, secretFile });
        if (entries.length > want) {
          lowerBound = true;
          break scan;
        }
      }
    } else {
      if (blocked) {
        omitted++;
        omittedMatches += found.matched;
        continue;
      }
      if (outputMode === 'files_only') files.push(f.display);
      else counts.push([f.display, found.matched]);
      if (files.length + counts.length > want) {
        lowerBound = true;
        break scan;
      }
    }
  }
  // Hermes counts its total before it drops the results in credential files (`_omitted` says how many).
  if (outputMode === 'content') {
    result.total_count = entries.length + omitted;
    // File content: redacted here, once, in file-read mode (search-files.ts redacts the rest of the result).
    result.matches = entries.slice(offset, offset + limit).map(({ secretFile, ...m }) => redactDeep(m, { fileRead: true, secretFile }));
    truncated = entries.length > want;
  } else if (outputMode === 'files_only') {
    result.total_count = files.length + omitted;
    result.files = files.slice(offset, offset + limit);
    truncated = files.length > want;
  } else {
    result.total_count = counts.reduce((sum, [, n]) => sum + n, omittedMatches);
    result.counts = Object.fromEntries(counts.slice(offset, offset + limit));
    truncated = counts.length > want;
  }
  return { omitted, truncated, lowerBound };
}
