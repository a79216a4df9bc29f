import { throwIfAborted } from '../common/index.js';
import { isBlockedDevicePath, isSecretBearingFile, readBlockMessage } from '../access/index.js';
import { globMatcher, rootFiles, type SearchPage, type SearchScope, type SearchTally } from './walk.js';
import { LINE_ORIENTED_WARNING, compileSearchRegex, patternHasRegexNewline } from './regex.js';
import { scanFile } from './file-scan.js';
import { zeroMatchProbe } from './probe.js';

export { SEARCH_MAX_FILE_BYTES } from './file-scan.js';

/** Hermes 0.22's warning when a `\n` regex was searched across lines (`_search_with_rg`). */
const MULTILINE_WARNING = 'Pattern contains \\n — multiline mode (-U) was enabled automatically so the regex can match across line boundaries.';

// search_files target "content": a RegExp over the lines of every searchable file the walk yields
// (search/index.ts describes the tool; search/regex.ts turns the pattern into that RegExp,
// search/file-scan.ts searches one file, search/probe.ts says where a pattern that found nothing would).

export interface SearchMatch {
  path: string;
  line: number;
  content: string;
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
  page: SearchPage,
  result: Record<string, unknown>,
  warnings: string[],
): Promise<SearchTally> {
  const { pattern, fileGlob } = query;
  const acrossLines = patternHasRegexNewline(pattern);
  if (acrossLines && !query.multiline) {
    // Hermes 0.19 runs rg line-oriented: a newline in the regex finds nothing (rg refuses it), and says why.
    result.total_count = 0;
    warnings.push(LINE_ORIENTED_WARNING);
    return { omitted: 0, truncated: false, lowerBound: false };
  }
  const re = compileSearchRegex(pattern);
  // Hermes 0.22 turns on rg's --multiline for such a pattern, and says so.
  const multiline = acrossLines ? new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g') : undefined;
  if (multiline) warnings.push(MULTILINE_WARNING);
  const globOk = fileGlob ? globMatcher(fileGlob) : null;
  // rg's --glob is an override: a file it names is searched even when hidden or ignored.
  const whitelist = fileGlob && !fileGlob.startsWith('!') && globOk ? globOk : undefined;
  const found = await collectMatches(scope, query, { re, multiline, globOk, whitelist }, page.offset + page.limit);
  const { truncated, secretFiles } = pageResult(query.outputMode, found, page, result);
  if (query.probes && result.total_count === 0 && !scope.budget.limitReason) {
    const hint = await zeroMatchProbe(scope, re, pattern, globOk, whitelist);
    if (hint) warnings.push(hint);
  }
  return { omitted: found.omitted, truncated, lowerBound: found.lowerBound, secretFiles };
}

/** How a content search matches: the line RegExp, the global one across lines (0.22), the glob filter and override. */
interface Matching {
  re: RegExp;
  multiline: RegExp | undefined;
  globOk: ((rel: string) => boolean) | null;
  whitelist: ((rel: string) => boolean) | undefined;
}

/** What the walk found, per output mode, up to one entry past the page. */
interface Collected {
  /** Each entry remembers whether its file is secret-bearing: its redaction mode (Hermes classifies every hit's path). */
  entries: Array<SearchMatch & { secretFile: boolean }>;
  files: string[];
  counts: Array<[string, number]>;
  /** Matches (content) or files (files_only, count) in files a read of which is blocked. */
  omitted: number;
  /** count mode: the omitted files' matching lines. */
  omittedMatches: number;
  lowerBound: boolean;
}

/** Walks the root and scans each file, stopping once `want` + 1 entries exist. */
async function collectMatches(scope: SearchScope, query: ContentQuery, matching: Matching, want: number): Promise<Collected> {
  const { root, budget, dirs, signal } = scope;
  const { outputMode, context } = query;
  const { re, multiline, globOk, whitelist } = matching;
  const out: Collected = { entries: [], files: [], counts: [], omitted: 0, omittedMatches: 0, lowerBound: false };
  const { entries, files, counts } = out;
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
        out.omitted += found.shown.length;
        continue;
      }
      const secretFile = isSecretBearingFile(f.checked, dirs);
      for (const { line, content } of found.shown) {
        entries.push({ path: f.display, line, content, secretFile });
        if (entries.length > want) {
          out.lowerBound = true;
          break scan;
        }
      }
    } else {
      if (blocked) {
        out.omitted++;
        out.omittedMatches += found.matched;
        continue;
      }
      if (outputMode === 'files_only') files.push(f.display);
      else counts.push([f.display, found.matched]);
      if (files.length + counts.length > want) {
        out.lowerBound = true;
        break scan;
      }
    }
  }
  return out;
}

/** Sets the page's fields on `result`; whether entries lie past it, and the secret-bearing files the page quotes. */
function pageResult(outputMode: string, found: Collected, { offset, limit }: SearchPage, result: Record<string, unknown>): { truncated: boolean; secretFiles: string[] } {
  const want = offset + limit;
  const { entries, files, counts, omitted } = found;
  // Hermes counts its total before it drops the results in credential files (`_omitted` says how many).
  if (outputMode === 'content') {
    result.total_count = entries.length + omitted;
    const page = entries.slice(offset, offset + limit);
    result.matches = page.map(({ secretFile: _secret, ...m }) => m);
    return { truncated: entries.length > want, secretFiles: [...new Set(page.filter((m) => m.secretFile).map((m) => m.path))] };
  }
  if (outputMode === 'files_only') {
    result.total_count = files.length + omitted;
    result.files = files.slice(offset, offset + limit);
    return { truncated: files.length > want, secretFiles: [] };
  }
  result.total_count = counts.reduce((sum, [, n]) => sum + n, found.omittedMatches);
  result.counts = Object.fromEntries(counts.slice(offset, offset + limit));
  return { truncated: counts.length > want, secretFiles: [] };
}
