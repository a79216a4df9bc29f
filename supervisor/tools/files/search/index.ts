import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../../core/tool-types.js';
import type { PathDeps } from '../access/index.js';
import { coerceIntegerArgs, follows, type FollowsDeps } from '../common/index.js';
import { searchContent } from './content.js';
import { searchFileNames, searchFileNamesOrdered, type FileOrder } from './glob.js';
import { type SearchScope, type WalkBudget } from './walk.js';
import { openRoot } from './root.js';
import { defaultLimits } from '../../../../shared/limits.js';
import { monotonicMs } from '../../../../shared/clock.js';

// search_files — Hermes' content / file-name search (tools/file_tools.py `search_tool`, which runs
// tools/file_operations.py `ShellFileOperations.search`: ripgrep where it is installed), implemented
// in TypeScript instead of shelling out, answering as Hermes does with ripgrep:
//
// - the walk is rg's: hidden files/dirs and symlinks skipped, `.rgignore` / `.ignore` files and,
//   inside a git repository, `.gitignore` / `.git/info/exclude` honoured (above the search root only
//   within the roots, in `roots` mode); a glob (file_glob, or the file-search pattern) is an rg
//   override, so a hidden or ignored entry it matches is taken anyway.
//   Nothing else is skipped: node_modules, venv, site-packages, __pycache__ are searched unless an
//   ignore file names them, as Hermes' rg searches them (neither pin passes it prune globs; only
//   0.22's zero-match probe prunes agent/search_policy.py SEARCH_PRUNE_DIR_NAMES).
// - target "content": rg's regex dialect as a JS RegExp over each line of every file (POSIX
//   classes and `\p{Script}` translated, look-around and backreferences refused as rg refuses
//   them, a leading `(?i)` / `(?s)` / `(?m)` as the JS flag); a line keeps a CRLF's `\r` while it
//   is matched (rg's `$` does not match before it) and is shown without it, at most 500 code
//   points. Search is line-oriented: a pattern with `\n` finds nothing and carries Hermes' warning.
//   Binary files (a NUL byte) are skipped; files over 2 MiB are streamed rather than read whole; `file_glob` filters file names (no
//   `/`: the base name at any depth, like `rg --glob`); `context` lines around matches are returned
//   as entries too; output modes `content` (`matches: [{path, line, content}]`), `files_only`
//   (`files`) and `count` (`counts`, matching lines per file); `offset`/`limit` page the entries
//   (files for files_only/count), clamped as Hermes' `normalize_search_pagination` does.
// - target "files": `pattern` is a glob (picomatch). A bare name gets Hermes' `*` prefix (so it
//   matches at any depth, as a suffix); a pattern with `/` matches the path relative to `path`.
//   Results are newest first by modification time.
// The result is Hermes' `SearchResult.to_dict` shape (empty lists and a false `truncated` left
// out). Results that point at credential files are dropped and counted in `_omitted`. The walk is
// bounded (20,000 directory entries, 20 s) and stops early once a page is full; `ctx.signal`
// cancels it. Paths are shown like rg prints them: `path` as given, joined with the relative path.
//
// Differences from Hermes, on purpose, are the search_files entries of
// tests/fidelity/divergences/ (docs/differences-from-hermes.md): among them, truncation is
// reported exactly, `matches` is never replaced by the dense `matches_text` form, file search is
// newest first over the whole tree, and the schema's `target` enum is the authoritative
// ['content','files'] — the handler still maps the legacy aliases `grep` → content and `find` →
// files for direct (non-schema-validated) callers.
//
// Content search lives in search/content.ts, file-name search in search/glob.ts, and the root,
// walk and glob matching they share in search/walk.ts; this module parses the arguments, runs one
// of them and shapes the result.

export { SEARCH_MAX_FILE_BYTES, type SearchMatch } from './content.js';
export { compileSearchRegex, patternHasRegexNewline } from './regex.js';

const TARGET_ALIASES: Record<string, 'content' | 'files'> = { content: 'content', files: 'files', grep: 'content', find: 'files' };
const OUTPUT_MODES = new Set(['content', 'files_only', 'count']);

/**
 * Hermes `normalize_search_pagination`'s repair and clamps, applied before the schema
 * (common/pagination.ts); `context` is read by Hermes' search as given, after dispatch turned a numeric
 * string into its integer.
 */
const SEARCH_INTEGER_ARGS = { offset: { min: 0 }, limit: { min: 1 }, context: { stringsOnly: true } } as const;

function intArg(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

const OMITTED_NOTE = 'result(s) omitted because they target credential, token, cache, or secret-bearing environment files.';

type SearchDeps = PathDeps &
  FollowsDeps & {
    /** The most directory entries one call walks (`searchFilesMaxEntries`); the default limit when absent. */
    searchFilesMaxEntries?: number;
    /** How long one call walks and reads (`searchFilesTimeoutSeconds`); the default limit when absent. */
    searchFilesTimeoutSeconds?: number;
  };

async function searchFiles(deps: SearchDeps, args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
  const pattern = args.pattern;
  if (typeof pattern !== 'string' || pattern === '') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, "search_files: missing required field 'pattern'.");
  const rawTarget = args.target === undefined ? 'content' : String(args.target);
  const target = TARGET_ALIASES[rawTarget];
  if (!target) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `search_files: unknown target '${rawTarget}' (expected 'content' or 'files').`);
  const outputMode = args.output_mode === undefined ? 'content' : String(args.output_mode);
  if (!OUTPUT_MODES.has(outputMode)) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `search_files: unknown output_mode '${outputMode}' (expected 'content', 'files_only' or 'count').`);
  }
  // Hermes `normalize_search_pagination`: offset ≥ 0, limit ≥ 1 (out-of-range values are clamped, not refused).
  const offset = Math.max(0, intArg(args.offset, 0));
  const limit = Math.max(1, intArg(args.limit, 50));
  const context = Math.max(0, intArg(args.context, 0));
  const fileGlob = typeof args.file_glob === 'string' && args.file_glob !== '' ? args.file_glob : null;
  const pathArg = typeof args.path === 'string' && args.path !== '' ? args.path : '.';
  // Hermes 0.22: `order` for file search (ignored for content), checked before anything is searched.
  const ordered = follows(deps, 'searchFilesOrder');
  const order = args.order === undefined || args.order === null ? 'discovery' : String(args.order);
  if (ordered && target === 'files' && order !== 'discovery' && order !== 'modified') {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid file search order '${order}'; expected 'discovery' or 'modified'.`);
  }

  const root = await openRoot(deps, pathArg, ctx);
  const dirs = root.dirs;
  const maxEntries = deps.searchFilesMaxEntries ?? defaultLimits().searchFilesMaxEntries;
  const timeoutSeconds = deps.searchFilesTimeoutSeconds ?? defaultLimits().searchFilesTimeoutSeconds;
  const budget: WalkBudget = { entries: 0, maxEntries, deadline: monotonicMs() + timeoutSeconds * 1000, limitReason: null };
  const scope: SearchScope = { root, budget, dirs, signal: ctx?.signal };
  const warnings: string[] = [];
  const result: Record<string, unknown> = {};
  const tally =
    target === 'files'
      ? ordered
        ? await searchFileNamesOrdered(scope, pattern, order as FileOrder, { offset, limit }, result)
        : await searchFileNames(scope, pattern, { offset, limit }, result)
      : await searchContent(
          scope,
          { pattern, outputMode, context, fileGlob, multiline: follows(deps, 'searchFilesMultiline'), probes: follows(deps, 'searchFilesZeroMatchProbes') },
          { offset, limit },
          result,
          warnings,
        );
  const omitted = tally.omitted;
  let truncated = tally.truncated;
  let lowerBound = tally.lowerBound;

  if (budget.limitReason) {
    truncated = true;
    lowerBound = true;
    result.limit_reason = budget.limitReason;
    warnings.push(
      budget.limitReason === 'entry_limit'
        ? `Search stopped after ${maxEntries.toLocaleString('en-US')} directory entries; results are incomplete. Narrow 'path' or use file_glob.`
        : `Search stopped after ${timeoutSeconds} s; results are incomplete. Narrow 'path' or the pattern.`,
    );
  }
  // Hermes' SearchResult.to_dict: empty lists and a false `truncated` are left out.
  for (const key of ['matches', 'files'] as const) if (Array.isArray(result[key]) && (result[key] as unknown[]).length === 0) delete result[key];
  if (typeof result.counts === 'object' && result.counts !== null && Object.keys(result.counts).length === 0) delete result.counts;
  if (truncated) result.truncated = true;
  if (truncated && lowerBound) result.total_count_is_lower_bound = true;
  if (warnings.length > 0) result.warning = warnings.join(' ');
  if (omitted > 0) result._omitted = `${omitted} ${OMITTED_NOTE}`;

  // Redacted by the pipeline, once, in file-search mode: a match from a secret-bearing file (the
  // walk knows each match's file) also gets the assignment passes. The matches come first.
  const hint = `Results truncated. Use offset=${offset + limit} to see more, or narrow with a more specific pattern or file_glob.`;
  // Hermes 0.22 puts the hint in the JSON (#90322); before, it followed the JSON as text.
  if (truncated && follows(deps, 'searchFilesHintField')) result._hint = hint;
  const { matches, ...rest } = result;
  const outcome: ToolOutcome = { structured: matches === undefined ? rest : { matches, ...rest } };
  if (tally.secretFiles && tally.secretFiles.length > 0) outcome.secretFiles = tally.secretFiles;
  if (truncated && !follows(deps, 'searchFilesHintField')) {
    outcome.content = [
      { type: 'text', text: `[Hint: Results truncated. Use offset=${offset + limit} to see more, or narrow with a more specific pattern or file_glob.]` },
    ];
  }
  return outcome;
}

export function searchFilesTool(deps: SearchDeps): ToolDefinition {
  const ordered = follows(deps, 'searchFilesOrder');
  return {
    name: 'search_files',
    description:
      'Search file contents or find files by name. Use this instead of grep/rg/find/ls in terminal.\n\n' +
      "Content search (target='content'): Regex search inside files. Output modes: full matches with line numbers, file paths only, or match counts.\n\n" +
      (ordered
        ? "File search (target='files'): Find files by glob pattern (e.g., '*.py', '*config*'). Also use this instead of ls. Discovery order is the fast bounded default; exact global newest-first order is an explicit opt-in and may scan the full tree."
        : "File search (target='files'): Find files by glob pattern (e.g., '*.py', '*config*'). Also use this instead of ls — results sorted by modification time."),
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
        limit: { type: 'integer', default: 50, description: 'Maximum number of results to return (default: 50)' },
        offset: { type: 'integer', default: 0, description: 'Skip first N results for pagination (default: 0)' },
        ...(ordered
          ? {
              order: {
                type: 'string',
                enum: ['discovery', 'modified'],
                default: 'discovery',
                description: "File-search order: 'discovery' is fast bounded traversal order; 'modified' is exact global newest-first and may scan the full tree; ignored for content",
              },
            }
          : {}),
        output_mode: {
          type: 'string',
          enum: ['content', 'files_only', 'count'],
          default: 'content',
          description:
            "Output format for grep mode: 'content' shows matching lines with line numbers, 'files_only' lists file paths, 'count' shows match counts per file",
        },
        context: { type: 'integer', default: 0, description: 'Number of context lines before and after each match (grep mode only)' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, title: 'Search files' },
    requiresOwner: false,
    redaction: 'file-search',
    coerceArguments: (args) => coerceIntegerArgs(args, SEARCH_INTEGER_ARGS),
    async handler(args: Record<string, unknown>, ctx: CallContext) {
      return searchFiles(deps, args ?? {}, ctx);
    },
  };
}
