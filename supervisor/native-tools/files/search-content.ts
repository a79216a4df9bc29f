import { open, type FileHandle } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { redactDeep } from '../../../shared/redact.js';
import { hasBinaryExtension, decodeLenient, READ_FLAGS } from './fs-util.js';
import { throwIfAborted } from './paths.js';
import { isBlockedDevicePath, isSecretBearingFile, readBlockMessage } from './sensitive-paths.js';
import { globMatcher, rootFiles, type SearchPage, type SearchScope, type SearchTally } from './search-walk.js';

// search_files target "content": a RegExp over the lines of every searchable file the walk yields
// (search-files.ts describes the tool).

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

/** rg's regex as a JS RegExp (`u` mode when the pattern allows it). Throws INVALID_ARGUMENTS. */
export function compileSearchRegex(pattern: string, multiline: boolean): RegExp {
  let source = pattern;
  let flags = multiline ? 'gm' : '';
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of new Set(inline[1]!)) if (!flags.includes(f)) flags += f;
  }
  try {
    return new RegExp(source, flags + 'u');
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (e) {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid regex pattern ${JSON.stringify(pattern)}: ${(e as Error).message}`);
    }
  }
}

/** Lines of a searchable file, or null when it is skipped (binary, too large, unreadable). */
async function readSearchable(abs: string, skipped: { large: number }): Promise<string | null> {
  if (hasBinaryExtension(abs)) return null;
  let handle: FileHandle;
  try {
    handle = await open(abs, READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return null;
    if (st.size > SEARCH_MAX_FILE_BYTES) {
      skipped.large++;
      return null;
    }
    const bytes = await handle.readFile();
    if (bytes.includes(0)) return null; // binary, as rg decides
    return decodeLenient(bytes);
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function splitFileLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** 0-based indices of the lines that match. */
function matchingLines(text: string, lines: string[], re: RegExp, multiline: boolean): number[] {
  if (!multiline) {
    const out: number[] = [];
    for (let i = 0; i < lines.length; i++) if (re.test(lines[i]!)) out.push(i);
    return out;
  }
  // Multiline: every line a match spans counts (rg prints each of them).
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (pos: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const set = new Set<number>();
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const first = lineOf(m.index);
    const last = lineOf(Math.max(m.index, m.index + m[0].length - 1));
    for (let l = first; l <= last && l < lines.length; l++) set.add(l);
    if (m[0].length === 0) re.lastIndex++;
  }
  return [...set].sort((a, b) => a - b);
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
  let truncated = false;
  let lowerBound = false;
  const multiline = patternHasRegexNewline(pattern);
  const re = compileSearchRegex(pattern, multiline);
  if (multiline) warnings.push('Pattern contains \\n — multiline mode was enabled automatically so the regex can match across line boundaries.');
  const globOk = fileGlob ? globMatcher(fileGlob) : null;
  const want = offset + limit; // stop once one more entry than the page exists
  // Each entry remembers whether its file is secret-bearing: its redaction mode (Hermes classifies every hit's path).
  const entries: Array<SearchMatch & { secretFile: boolean }> = [];
  const files: string[] = [];
  const counts: Array<[string, number]> = [];
  const skipped = { large: 0 };
  scan: for await (const f of await rootFiles(root, budget, signal)) {
    throwIfAborted(signal, 'search_files');
    if (globOk && !root.isFile && !globOk(f.rel)) continue;
    if (isBlockedDevicePath(f.checked.lexical) || isBlockedDevicePath(f.checked.real)) continue; // e.g. /proc/<pid>/maps in a walk of /proc
    const text = await readSearchable(f.abs, skipped);
    if (text === null) continue;
    const lines = splitFileLines(text);
    const matched = matchingLines(text, lines, re, multiline);
    if (matched.length === 0) continue;
    const blocked = readBlockMessage(f.checked, f.display, dirs) !== null;
    if (outputMode === 'content') {
      const shown = withContext(matched, context, lines.length);
      if (blocked) {
        omitted += shown.length;
        continue;
      }
      const secretFile = isSecretBearingFile(f.checked, dirs);
      for (const l of shown) {
        entries.push({ path: f.display, line: l + 1, content: lines[l]!.slice(0, CONTENT_CLAMP), secretFile });
        if (entries.length > want) {
          lowerBound = true;
          break scan;
        }
      }
    } else {
      if (blocked) {
        omitted++;
        continue;
      }
      if (outputMode === 'files_only') files.push(f.display);
      else counts.push([f.display, matched.length]);
      if (files.length + counts.length > want) {
        lowerBound = true;
        break scan;
      }
    }
  }
  if (skipped.large > 0) warnings.push(`${skipped.large} file(s) larger than ${SEARCH_MAX_FILE_BYTES / (1024 * 1024)} MiB were not searched.`);
  if (outputMode === 'content') {
    result.total_count = entries.length;
    // File content: redacted here, once, in file-read mode (search-files.ts redacts the rest of the result).
    result.matches = entries.slice(offset, offset + limit).map(({ secretFile, ...m }) => redactDeep(m, { fileRead: true, secretFile }));
    truncated = entries.length > want;
  } else if (outputMode === 'files_only') {
    result.total_count = files.length;
    result.files = files.slice(offset, offset + limit);
    truncated = files.length > want;
  } else {
    result.total_count = counts.reduce((sum, [, n]) => sum + n, 0);
    result.counts = Object.fromEntries(counts.slice(offset, offset + limit));
    truncated = counts.length > want;
  }
  return { omitted, truncated, lowerBound };
}
