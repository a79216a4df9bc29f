import { opendir, open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createRequire } from 'node:module';

// Loaded on first use (CommonJS build, so the call sites stay synchronous): an idle gateway never
// needs it, and every module loaded at startup counts against the idle-RSS budget.
let picomatchLibModule: typeof import('picomatch') | undefined;
const picomatchLib = (): typeof import('picomatch') => (picomatchLibModule ??= createRequire(import.meta.url)('picomatch') as typeof import('picomatch'));
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { redact } from '../../../shared/redact.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../../shared/tool-types.js';
import { hasBinaryExtension, decodeLenient, isNotFound, READ_FLAGS } from './fs-util.js';
import { cwdOf, resolveUserPath, throwIfAborted, type PathDeps } from './paths.js';
import { checkedPath, hermesDirs, readBlockError, readBlockMessage, type CheckedPath, type HermesDirs } from './sensitive-paths.js';

// search_files — Hermes' content / file-name search (tools/file_tools.py `search_tool`,
// tools/file_operations_search.py), implemented in TypeScript instead of shelling out to ripgrep:
//
// - target "content": a JS RegExp over each line of every file under `path` (rg's default walk:
//   hidden files/dirs and symlinks skipped; also node_modules, __pycache__, site-packages, venv),
//   binary files (a NUL byte, or a known binary extension) and files over 2 MiB skipped;
//   `file_glob` filters file names (no `/`: the base name at any depth, like `rg --glob`);
//   `context` lines around matches are returned as entries too; output modes `content`
//   (`matches: [{path, line, content}]`), `files_only` (`files`) and `count` (`counts`, matching
//   lines per file); `offset`/`limit` page the entries (files for files_only/count). A pattern
//   that needs a newline (`\n`) is matched across lines, like rg's automatic multiline mode.
//   A leading inline flag group `(?i)` / `(?s)` / `(?m)` becomes the JS flag.
// - target "files": `pattern` is a glob (picomatch). A bare name gets Hermes' `*` prefix (so it
//   matches at any depth, as a suffix); a pattern with `/` matches the path relative to `path`.
//   Results are newest first by modification time.
// Results that point at credential files are dropped and counted in `_omitted`. The walk is
// bounded (20,000 directory entries, 20 s) and stops early once a page is full; `ctx.signal`
// cancels it. Paths are shown like rg prints them: `path` as given, joined with the relative path.
//
// Differences from upstream, on purpose: no .gitignore handling, no zero-match probe hints
// (case-insensitive / hidden / literal re-runs), no comma/space-separated multi-path recovery, the
// legacy dense `matches_text` form is not produced (structured `matches` is always returned), and
// the schema's `target` enum is the authoritative ['content','files'] — the handler still maps the
// legacy aliases `grep` → content and `find` → files for direct (non-schema-validated) callers.

export const SEARCH_MAX_ENTRIES = 20_000;
export const SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024;
export const SEARCH_DEADLINE_MS = 20_000;
const CONTENT_CLAMP = 500;
const PRUNE_DIRS = new Set(['node_modules', '__pycache__', 'site-packages', 'venv']);
const TARGET_ALIASES: Record<string, 'content' | 'files'> = { content: 'content', files: 'files', grep: 'content', find: 'files' };
const OUTPUT_MODES = new Set(['content', 'files_only', 'count']);

export interface SearchMatch {
  path: string;
  line: number;
  content: string;
}

interface WalkFile {
  abs: string;
  /** Relative to the search root, `/`-separated ('' when the root is the file itself). */
  rel: string;
  display: string;
  checked: CheckedPath;
}

interface WalkBudget {
  entries: number;
  deadline: number;
  limitReason: string | null;
}

function intArg(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
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

/** rg `--glob` semantics: a glob without `/` matches the base name at any depth, else the relative path. */
function globMatcher(glob: string): (rel: string) => boolean {
  try {
    // (picomatch's own `basename` option also applies to globs that contain a slash, so it is not used.)
    const isMatch = picomatchLib()(glob, { dot: true });
    if (glob.includes('/')) return (rel) => isMatch(rel);
    return (rel) => isMatch(rel.slice(rel.lastIndexOf('/') + 1));
  } catch (e) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid glob ${JSON.stringify(glob)}: ${(e as Error).message}`);
  }
}

function displayJoin(root: string, rel: string): string {
  if (rel === '') return root;
  return root.endsWith('/') ? root + rel : `${root}/${rel}`;
}

/** Files under `root` in sorted depth-first order, bounded by `budget`. */
async function* walkFiles(root: { abs: string; real: string; display: string }, budget: WalkBudget, signal?: AbortSignal): AsyncGenerator<WalkFile> {
  const stack: string[] = [''];
  while (stack.length > 0) {
    throwIfAborted(signal, 'search_files');
    if (Date.now() > budget.deadline) {
      budget.limitReason = 'search_timeout';
      return;
    }
    const rel = stack.pop()!;
    const dirAbs = rel ? join(root.abs, rel) : root.abs;
    let names: Array<{ name: string; kind: 'file' | 'dir' }> = [];
    try {
      const dir = await opendir(dirAbs);
      for await (const ent of dir) {
        if (++budget.entries > SEARCH_MAX_ENTRIES) {
          budget.limitReason = 'entry_limit';
          break;
        }
        if (ent.name.startsWith('.') || ent.isSymbolicLink()) continue;
        if (ent.isDirectory()) {
          if (!PRUNE_DIRS.has(ent.name)) names.push({ name: ent.name, kind: 'dir' });
        } else if (ent.isFile()) {
          names.push({ name: ent.name, kind: 'file' });
        }
      }
    } catch {
      continue; // unreadable directory: skipped, like rg's per-entry errors
    }
    names = names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const n of names) {
      if (n.kind !== 'file') continue;
      const childRel = rel ? `${rel}/${n.name}` : n.name;
      yield {
        abs: join(root.abs, childRel),
        rel: childRel,
        display: displayJoin(root.display, childRel),
        checked: { lexical: join(root.abs, childRel), real: join(root.real, childRel) },
      };
    }
    if (budget.limitReason) return;
    const dirs = names.filter((n) => n.kind === 'dir').map((n) => (rel ? `${rel}/${n.name}` : n.name));
    for (let i = dirs.length - 1; i >= 0; i--) stack.push(dirs[i]!);
  }
}

async function rootFiles(root: { abs: string; real: string; display: string; isFile: boolean }, budget: WalkBudget, signal?: AbortSignal): Promise<AsyncIterable<WalkFile> | WalkFile[]> {
  if (root.isFile) return [{ abs: root.abs, rel: basename(root.abs), display: root.display, checked: { lexical: root.abs, real: root.real } }];
  return walkFiles(root, budget, signal);
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

async function pathNotFound(input: string, display: string, absolute: string): Promise<GatewayError> {
  const parent = dirname(absolute);
  const q = basename(display).toLowerCase();
  let similar: string[] = [];
  if (q) {
    try {
      const entries = (await readdir(parent)).filter((n) => !n.startsWith('.')).sort().slice(0, 20);
      similar = entries
        .filter((e) => {
          const le = e.toLowerCase();
          return le.includes(q) || q.includes(le) || le.startsWith(q.slice(0, 3));
        })
        .slice(0, 5)
        .map((e) => join(dirname(display), e));
    } catch {
      // parent missing too
    }
  }
  const message = `Path not found: ${input}` + (similar.length > 0 ? `. Similar paths: ${similar.join(', ')}` : '');
  return new GatewayError(ErrorCode.FILE_NOT_FOUND, message, { similar_paths: similar });
}

interface SearchRoot {
  abs: string;
  real: string;
  display: string;
  isFile: boolean;
}

async function openRoot(deps: PathDeps, input: string, ctx: CallContext, dirs: HermesDirs): Promise<SearchRoot> {
  const target = resolveUserPath(input, cwdOf(deps, ctx));
  const checked = await checkedPath(target);
  const blocked = readBlockMessage(checked, input, dirs);
  if (blocked) throw readBlockError(blocked);
  let st;
  try {
    st = await stat(target.absolute);
  } catch (e) {
    if (isNotFound(e)) throw await pathNotFound(input, target.expanded, target.absolute);
    throw new GatewayError(ErrorCode.FILE_NOT_FOUND, `Cannot search ${input}: ${(e as Error).message}`);
  }
  if (!st.isFile() && !st.isDirectory()) throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, `Cannot search ${input}: not a regular file or directory.`);
  let display = target.expanded;
  while (display.length > 1 && display.endsWith('/')) display = display.slice(0, -1);
  return { abs: target.absolute, real: await realpath(target.absolute), display, isFile: st.isFile() };
}

const OMITTED_NOTE = 'result(s) omitted because they target credential, token, cache, or secret-bearing environment files.';

export async function searchFiles(deps: PathDeps, args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
  const pattern = args.pattern;
  if (typeof pattern !== 'string' || pattern === '') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, "search_files: missing required field 'pattern'.");
  const rawTarget = args.target === undefined ? 'content' : String(args.target);
  const target = TARGET_ALIASES[rawTarget];
  if (!target) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `search_files: unknown target '${rawTarget}' (expected 'content' or 'files').`);
  const outputMode = args.output_mode === undefined ? 'content' : String(args.output_mode);
  if (!OUTPUT_MODES.has(outputMode)) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `search_files: unknown output_mode '${outputMode}' (expected 'content', 'files_only' or 'count').`);
  }
  // Hermes `normalize_search_pagination`: offset ≥ 0, limit ≥ 1.
  const offset = Math.max(0, intArg(args.offset, 0));
  const limit = Math.max(1, intArg(args.limit, 50));
  const context = Math.max(0, intArg(args.context, 0));
  const fileGlob = typeof args.file_glob === 'string' && args.file_glob !== '' ? args.file_glob : null;
  const pathArg = typeof args.path === 'string' && args.path !== '' ? args.path : '.';

  const dirs = await hermesDirs(deps.hermesHome);
  const root = await openRoot(deps, pathArg, ctx, dirs);
  const budget: WalkBudget = { entries: 0, deadline: Date.now() + SEARCH_DEADLINE_MS, limitReason: null };
  const signal = ctx?.signal;
  let omitted = 0;
  const warnings: string[] = [];
  const result: Record<string, unknown> = {};
  let truncated = false;
  let lowerBound = false;

  if (target === 'files') {
    const wrapped = !pattern.includes('/') && !pattern.startsWith('*') ? `*${pattern}` : pattern;
    const matches = globMatcher(wrapped);
    const found: Array<{ display: string; mtime: number }> = [];
    for await (const f of await rootFiles(root, budget, signal)) {
      throwIfAborted(signal, 'search_files');
      if (!matches(f.rel)) continue;
      if (readBlockMessage(f.checked, f.display, dirs)) {
        omitted++;
        continue;
      }
      const st = await stat(f.abs).catch(() => null);
      if (st) found.push({ display: f.display, mtime: st.mtimeMs });
    }
    found.sort((a, b) => b.mtime - a.mtime || (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
    result.total_count = found.length;
    result.files = found.slice(offset, offset + limit).map((f) => f.display);
    truncated = found.length > offset + limit;
  } else {
    const multiline = patternHasRegexNewline(pattern);
    const re = compileSearchRegex(pattern, multiline);
    if (multiline) warnings.push('Pattern contains \\n — multiline mode was enabled automatically so the regex can match across line boundaries.');
    const globOk = fileGlob ? globMatcher(fileGlob) : null;
    const want = offset + limit; // stop once one more entry than the page exists
    const entries: SearchMatch[] = [];
    const files: string[] = [];
    const counts: Array<[string, number]> = [];
    const skipped = { large: 0 };
    scan: for await (const f of await rootFiles(root, budget, signal)) {
      throwIfAborted(signal, 'search_files');
      if (globOk && !root.isFile && !globOk(f.rel)) continue;
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
        for (const l of shown) {
          entries.push({ path: f.display, line: l + 1, content: lines[l]!.slice(0, CONTENT_CLAMP) });
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
      result.matches = entries.slice(offset, offset + limit).map((m) => ({ ...m, content: redact(m.content, { codeFile: true }) }));
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
  }

  if (budget.limitReason) {
    truncated = true;
    lowerBound = true;
    result.limit_reason = budget.limitReason;
    warnings.push(
      budget.limitReason === 'entry_limit'
        ? `Search stopped after ${SEARCH_MAX_ENTRIES.toLocaleString('en-US')} directory entries; results are incomplete. Narrow 'path' or use file_glob.`
        : `Search stopped after ${SEARCH_DEADLINE_MS / 1000} s; results are incomplete. Narrow 'path' or the pattern.`,
    );
  }
  result.truncated = truncated;
  if (truncated && lowerBound) result.total_count_is_lower_bound = true;
  if (warnings.length > 0) result.warning = warnings.join(' ');
  if (omitted > 0) result._omitted = `${omitted} ${OMITTED_NOTE}`;

  const outcome: ToolOutcome = { structured: result };
  if (truncated) {
    outcome.content = [
      { type: 'text', text: `[Hint: Results truncated. Use offset=${offset + limit} to see more, or narrow with a more specific pattern or file_glob.]` },
    ];
  }
  return outcome;
}

export function searchFilesTool(deps: PathDeps): ToolDefinition {
  return {
    name: 'search_files',
    description:
      'Search file contents or find files by name. Use this instead of grep/rg/find/ls in terminal.\n\n' +
      "Content search (target='content'): Regex search inside files. Output modes: full matches with line numbers, file paths only, or match counts.\n\n" +
      "File search (target='files'): Find files by glob pattern (e.g., '*.py', '*config*'). Also use this instead of ls — results sorted by modification time.",
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: "Regex pattern for content search, or glob pattern (e.g., '*.py') for file search" },
        target: {
          type: 'string',
          enum: ['content', 'files'],
          default: 'content',
          description: "'content' searches inside file contents, 'files' searches for files by name",
        },
        path: { type: 'string', default: '.', description: 'Directory or file to search in (default: current working directory)' },
        file_glob: { type: 'string', description: "Filter files by pattern in grep mode (e.g., '*.py' to only search Python files)" },
        limit: { type: 'integer', minimum: 1, default: 50, description: 'Maximum number of results to return (default: 50)' },
        offset: { type: 'integer', minimum: 0, default: 0, description: 'Skip first N results for pagination (default: 0)' },
        output_mode: {
          type: 'string',
          enum: ['content', 'files_only', 'count'],
          default: 'content',
          description:
            "Output format for grep mode: 'content' shows matching lines with line numbers, 'files_only' lists file paths, 'count' shows match counts per file",
        },
        context: { type: 'integer', minimum: 0, default: 0, description: 'Number of context lines before and after each match (grep mode only)' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, title: 'Search files' },
    requiresOwner: false,
    async handler(args: Record<string, unknown>, ctx: CallContext) {
      return searchFiles(deps, args ?? {}, ctx);
    },
  };
}
