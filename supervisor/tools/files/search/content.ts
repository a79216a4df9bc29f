import { open, type FileHandle } from 'node:fs/promises';
import { decodeLenient, READ_FLAGS, throwIfAborted } from '../common/index.js';
import { isBlockedDevicePath, isSecretBearingFile, readBlockMessage } from '../access/index.js';
import { globMatcher, rootFiles, type SearchPage, type SearchScope, type SearchTally, type WalkBudget } from './walk.js';
import { LINE_ORIENTED_WARNING, compileSearchRegex, patternHasRegexNewline } from './regex.js';

/** Hermes 0.22's warning when a `\n` regex was searched across lines (`_search_with_rg`). */
const MULTILINE_WARNING = 'Pattern contains \\n — multiline mode (-U) was enabled automatically so the regex can match across line boundaries.';

// search_files target "content": a RegExp over the lines of every searchable file the walk yields
// (search/index.ts describes the tool; search/regex.ts turns the pattern into that RegExp).

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
async function scanFile(abs: string, re: RegExp, context: number, keep: number, budget: WalkBudget, signal?: AbortSignal, multiline?: RegExp): Promise<FileScan | null> {
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

/**
 * rg --multiline: every line a match of the global `re` over the whole text touches (0-based,
 * in order), a match that spans lines reporting each of them.
 */
function multilineMatchingLines(text: string, re: RegExp, lineCount: number): number[] {
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
  /** Hermes 0.22: a regex with `\n` is matched across lines (rg --multiline), with a warning. */
  multiline?: boolean;
  /** Hermes 0.22: a search that finds nothing says where the pattern would (`_zero_match_probe`). */
  probes?: boolean;
}

/** Content search; sets `total_count` and `matches` / `files` / `counts` on `result`. */
export async function searchContent(
  scope: SearchScope,
  query: ContentQuery,
  { offset, limit }: SearchPage,
  result: Record<string, unknown>,
  warnings: string[],
): Promise<SearchTally> {
  const { pattern, outputMode, context, fileGlob } = query;
  const { root, budget, dirs, signal } = scope;
  let omitted = 0;
  let omittedMatches = 0; // count mode: the omitted files' matching lines
  let truncated = false;
  let lowerBound = false;
  const secretFiles: string[] = [];
  const acrossLines = patternHasRegexNewline(pattern);
  if (acrossLines && !query.multiline) {
    // Hermes 0.19 runs rg line-oriented: a newline in the regex finds nothing (rg refuses it), and says why.
    result.total_count = 0;
    warnings.push(LINE_ORIENTED_WARNING);
    return { omitted, truncated, lowerBound };
  }
  const re = compileSearchRegex(pattern);
  // Hermes 0.22 turns on rg's --multiline for such a pattern, and says so.
  const multiline = acrossLines ? new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g') : undefined;
  if (multiline) warnings.push(MULTILINE_WARNING);
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
    if (budget.limitReason) break; // a large file's scan ran out of time (search/index.ts reports it)
    if (globOk && !root.isFile && !globOk(f.rel)) continue;
    if (isBlockedDevicePath(f.checked.lexical) || isBlockedDevicePath(f.checked.real)) continue; // e.g. /proc/<pid>/maps in a walk of /proc
    const found = await scanFile(f.abs, re, context, outputMode === 'content' ? want + 1 - entries.length : 0, budget, signal, multiline);
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
    const page = entries.slice(offset, offset + limit);
    result.matches = page.map(({ secretFile: _secret, ...m }) => m);
    secretFiles.push(...new Set(page.filter((m) => m.secretFile).map((m) => m.path)));
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
  if (query.probes && result.total_count === 0 && !budget.limitReason) {
    const hint = await zeroMatchProbe(scope, re, pattern, globOk, whitelist);
    if (hint) warnings.push(hint);
  }
  return { omitted, truncated, lowerBound, secretFiles };
}

/** Hermes `_ZERO_MATCH_PROBES`: the rg flags of each probe and what it says when it finds something. */
const PROBES: ReadonlyArray<{ probe: 'i' | 'hidden' | 'literal'; say: string }> = [
  { probe: 'i', say: "0 exact matches, but {total} case-insensitive match(es) in {n} file(s): {paths} — the pattern's casing may be wrong." },
  { probe: 'hidden', say: '0 matches in visible files, but {total} match(es) in {n} hidden or gitignored file(s): {paths} — these are excluded by default.' },
  {
    probe: 'literal',
    say: '0 regex matches, but {total} literal match(es) in {n} file(s): {paths} — the pattern contains regex metacharacters that likely need escaping (or pass a simpler substring).',
  },
];
/** What rg prints of at most this many files per probe (`_run_rg_bounded(..., 50)`). */
const PROBE_FILES = 50;
const REGEX_META = /[.[\](){}?*+^$\\|]/;

/**
 * Hermes `_zero_match_probe`: after a content search found nothing, the first of a case-insensitive
 * search, one of hidden and ignored files too, and (for a pattern with regex metacharacters) a
 * literal one that finds something, as a sentence naming up to five files.
 */
async function zeroMatchProbe(scope: SearchScope, re: RegExp, pattern: string, globOk: ((rel: string) => boolean) | null, whitelist: ((rel: string) => boolean) | undefined): Promise<string | null> {
  const { root, budget, signal } = scope;
  for (const { probe, say } of PROBES) {
    if (probe === 'literal' && !REGEX_META.test(pattern)) continue;
    const probeRe =
      probe === 'i' ? new RegExp(re.source, [...new Set(re.flags + 'gi')].join('')) : probe === 'literal' ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu') : new RegExp(re.source, [...new Set(re.flags + 'g')].join(''));
    let total = 0;
    const files: string[] = [];
    for await (const f of await rootFiles(root, budget, signal, probe === 'hidden' ? { everything: true } : { whitelist })) {
      throwIfAborted(signal, 'search_files');
      if (globOk && !root.isFile && !globOk(f.rel)) continue;
      if (isBlockedDevicePath(f.checked.lexical) || isBlockedDevicePath(f.checked.real)) continue;
      const n = await countMatches(f.abs, probeRe, root.isFile);
      if (n > 0) {
        total += n;
        // rg names no file when it searched just one.
        files.push(root.isFile ? '' : f.display);
        if (files.length >= PROBE_FILES) break;
      }
    }
    if (total > 0) {
      const extra = files.length - 5;
      const paths = files.slice(0, 5).join(', ') + (extra > 0 ? ` (+${extra} more)` : '');
      return say.replace('{total}', String(total)).replace('{n}', String(files.length)).replace('{paths}', paths);
    }
  }
  return null;
}

/**
 * rg --count-matches on one file: every match of the global `re` in its lines. A binary file (a
 * NUL byte) found by the walk has none; one named as the search path is counted all the same.
 */
async function countMatches(abs: string, re: RegExp, explicit: boolean): Promise<number> {
  let bytes: Buffer;
  try {
    const handle = await open(abs, READ_FLAGS);
    try {
      const st = await handle.stat();
      if (!st.isFile() || st.size > SEARCH_MAX_FILE_BYTES) return 0;
      bytes = await handle.readFile();
    } finally {
      await handle.close().catch(() => undefined);
    }
  } catch {
    return 0;
  }
  const { encoding, bom } = sniffEncoding(bytes);
  if (encoding === 'utf-8' && bytes.includes(0) && !explicit) return 0;
  const body = bytes.subarray(bom);
  let n = 0;
  for (const line of splitFileLines(encoding === 'utf-8' ? decodeLenient(body) : new TextDecoder(encoding, { fatal: false }).decode(body))) {
    re.lastIndex = 0;
    for (let m = re.exec(line); m !== null; m = re.exec(line)) {
      n++;
      if (m[0].length === 0) re.lastIndex++;
    }
  }
  return n;
}
