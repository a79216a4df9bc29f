import { open, type FileHandle } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { redactDeep } from '../../../shared/redact.js';
import { decodeLenient, READ_FLAGS } from './fs-util.js';
import { throwIfAborted } from './paths.js';
import { isBlockedDevicePath, isSecretBearingFile, readBlockMessage } from './sensitive-paths.js';
import { globMatcher, rootFiles, type SearchPage, type SearchScope, type SearchTally, type WalkBudget } from './search-walk.js';

// search_files target "content": a RegExp over the lines of every searchable file the walk yields
// (search-files.ts describes the tool).

/** Files up to this size are read whole to be searched; larger ones are streamed (scanFile). */
export const SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024;
const CONTENT_CLAMP = 500;

export interface SearchMatch {
  path: string;
  line: number;
  content: string;
}

/** Hermes `_pattern_has_regex_newline`: a literal newline or a `\n` escape with an odd backslash run. */
export function patternHasRegexNewline(pattern: string): boolean {
  return pattern.includes('\n') || /(?<!\\)(?:\\\\)*\\n/.test(pattern);
}

/** Hermes' warning when a `\n` regex found nothing: its search is line-oriented (`_maybe_warn_line_oriented_newline_pattern`). */
export const LINE_ORIENTED_WARNING =
  '0 results found. Note: search_files content search is line-oriented and does not run ripgrep with -U/--multiline, ' +
  'so `\\n` in the regex does not match line breaks. Use context=N to inspect neighboring lines, or escape as `\\\\n` ' +
  'when searching for a literal backslash+n.';

// rg's POSIX bracket classes (`[[:digit:]]`), as the ASCII ranges they stand for.
const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/**
 * What rg's regex dialect (Rust's regex crate) refuses and a JS RegExp would accept: look-around and
 * backreferences. rg's own words for each, so the error reads as Hermes' `Search failed: ...`.
 */
function unsupportedByRg(source: string): string | null {
  // Outside character classes only; an escaped `(` or `\` is literal.
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return 'backreferences are not supported';
      if (!inClass && next === 'k' && source[i + 2] === '<') return 'backreferences are not supported';
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      if (source[i + 1] === ']' || (source[i + 1] === '^' && source[i + 2] === ']')) i += source[i + 1] === '^' ? 2 : 1;
      continue;
    }
    if (ch === '(' && source[i + 1] === '?' && (source[i + 2] === '=' || source[i + 2] === '!' || (source[i + 2] === '<' && (source[i + 3] === '=' || source[i + 3] === '!')))) {
      return 'look-around, including look-ahead and look-behind, is not supported';
    }
  }
  return null;
}

// rg's Perl classes are Unicode-aware (`\w` matches `é`, `\d` matches `٣`); a JS RegExp's are
// ASCII even in `u` mode, so they are spelled out with Unicode properties.
const WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const OUTSIDE_CLASS: Record<string, string> = {
  w: `[${WORD}]`,
  W: `[^${WORD}]`,
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  b: `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`,
  B: `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`,
};
const INSIDE_CLASS: Record<string, string> = { w: WORD, d: '\\p{Nd}', D: '\\P{Nd}' };

/** `c` and its other case (one character each), or null when it has none. */
function caseFold(c: string): string | null {
  const lower = c.toLowerCase();
  const upper = c.toUpperCase();
  if (lower === upper || [...lower].length !== 1 || [...upper].length !== 1) return null;
  return lower === c ? upper : lower;
}

/**
 * rg's syntax as JS spells it: POSIX classes (`[[:digit:]]`), `\p{Greek}` (a script) as
 * `\p{Script=Greek}`, Python-style `(?P<name>`, and (`unicode`: for a `u`-mode RegExp) the
 * Unicode-aware `\w \W \d \D \b \B`. Inline case flags that JS (Node 20) cannot scope — `(?i:...)`,
 * or `(?i)` / `(?-i)` after the start — are applied by spelling each letter they cover in both
 * cases (`[hH]`, and `[a-cA-C]` for a letter range in a class).
 */
function jsSpelling(source: string, unicode: boolean): string {
  let out = '';
  let inClass = false;
  // Case-insensitivity of each open group (the last is the current one).
  const scopes: boolean[] = [false];
  const ci = () => scopes[scopes.length - 1]!;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      const prop = /^([pP])\{([A-Za-z_]+)\}/.exec(source.slice(i + 1));
      if (prop) {
        out += unicode && !isUnicodeProperty(prop[2]!) ? `\\${prop[1]}{Script=${prop[2]}}` : `\\${prop[0]}`;
        i += prop[0].length;
        continue;
      }
      const spelled = unicode ? (inClass ? INSIDE_CLASS : OUTSIDE_CLASS)[next] : undefined;
      out += spelled ?? ch + next;
      i++;
      continue;
    }
    if (inClass) {
      const posix = /^\[:([a-z]+):\]/.exec(source.slice(i));
      if (posix && POSIX_CLASSES[posix[1]!] !== undefined) {
        out += POSIX_CLASSES[posix[1]!];
        i += posix[0].length - 1;
        continue;
      }
      if (ch === ']') inClass = false;
      else if (ci()) {
        const range = /^(.)-([^\]\\])/u.exec(source.slice(i));
        if (range) {
          const [from, to] = [caseFold(range[1]!), caseFold(range[2]!)];
          out += range[0] + (from !== null && to !== null ? `${from}-${to}` : '');
          i += range[0].length - 1;
          continue;
        }
        out += ch + (caseFold(ch) ?? '');
        continue;
      }
      out += ch;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      out += ch;
      // A `]` (or `^]`) first in a class is a literal `]` to rg; JS reads `[]` as an empty class.
      const lead = source[i + 1] === '^' ? (source[i + 2] === ']' ? '^]' : '^') : source[i + 1] === ']' ? ']' : '';
      out += lead.replace(']', '\\]');
      i += lead.length;
      continue;
    }
    if (ch === '(') {
      const flagged = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(source.slice(i));
      if (flagged && (flagged[1] !== '' || flagged[2] !== undefined)) {
        const on = flagged[1]!.includes('i') ? true : flagged[2]?.includes('i') ? false : ci();
        if (flagged[3] === ')') scopes[scopes.length - 1] = on; // the rest of the enclosing group
        else {
          scopes.push(on);
          out += '(?:';
        }
        i += flagged[0].length - 1;
        continue;
      }
      scopes.push(ci());
      const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(source.slice(i));
      if (named) {
        out += `(?<${named[1]}>`; // the name as it is, never case-spelled
        i += named[0].length - 1;
        continue;
      }
      out += ch;
      continue;
    }
    if (ch === ')') {
      if (scopes.length > 1) scopes.pop();
      out += ch;
      continue;
    }
    const codePoint = source.codePointAt(i)!;
    const whole = String.fromCodePoint(codePoint);
    if (whole.length === 2) i++;
    const other = ci() ? caseFold(whole) : null;
    out += other !== null ? `[${whole}${other}]` : whole;
  }
  return out;
}

function isUnicodeProperty(name: string): boolean {
  try {
    new RegExp(`\\p{${name}}`, 'u');
    return true;
  } catch {
    return false;
  }
}

/** rg's regex as a JS RegExp (`u` mode when the pattern allows it). Throws INVALID_ARGUMENTS. */
export function compileSearchRegex(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  // A leading flag group becomes the RegExp's flags, unless a later `(?-i)` turns case back on
  // (jsSpelling then scopes it).
  const inline = /\(\?[a-zA-Z]*-[a-zA-Z]*i/.test(source) ? null : /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of new Set(inline[1]!)) if (!flags.includes(f)) flags += f;
  }
  const refused = unsupportedByRg(source);
  if (refused) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Search failed: regex parse error: ${refused}`);
  try {
    return new RegExp(jsSpelling(source, true), flags + 'u');
  } catch {
    try {
      return new RegExp(jsSpelling(source, false), flags);
    } catch (e) {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid regex pattern ${JSON.stringify(pattern)}: ${(e as Error).message}`);
    }
  }
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
