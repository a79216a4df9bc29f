import { opendir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { throwIfAborted } from '../common/index.js';
import type { CheckedPath, HermesDirs } from '../access/index.js';
import { ancestorLayers, dirLayers, exists, ignoreVerdict, picomatchLib, type IgnoreLayer } from './ignore.js';
import { monotonicMs } from '../../../../shared/clock.js';

// What search_files' two targets share (search/index.ts describes the tool): the bounded, rg-like
// walk beneath the search root (search/root.ts opens it; search/ignore.ts holds rg's ignore files),
// and rg `--glob` matching of the walked paths.

interface WalkFile {
  /** 'dir' only for a walk asked for directories (WalkOptions.directories). */
  kind?: 'file' | 'dir';
  /** Hidden or ignored, taken only because a glob override named it (or an ancestor). */
  shadowed?: boolean;
  abs: string;
  /** Relative to the search root, `/`-separated ('' when the root is the file itself). */
  rel: string;
  display: string;
  checked: CheckedPath;
}

export interface WalkBudget {
  entries: number;
  /** The most directory entries the call walks (`searchFilesMaxEntries`). */
  maxEntries: number;
  deadline: number;
  limitReason: string | null;
}

export interface SearchRoot {
  abs: string;
  real: string;
  display: string;
  isFile: boolean;
  /** In `roots` mode, the real roots: ignore files and `.git` above the search root are looked for only inside them. */
  confinedTo: readonly string[] | null;
  /** The Hermes directories every file the walk reaches is judged by. */
  dirs: HermesDirs;
}

/** What one search walks with: its opened root, the walk budget, the block lists, the caller's signal. */
export interface SearchScope {
  root: SearchRoot;
  budget: WalkBudget;
  dirs: HermesDirs;
  signal?: AbortSignal;
}

/** The page of entries (files for files_only/count) a search returns. */
export interface SearchPage {
  offset: number;
  limit: number;
}

/** What a search reports besides the fields it sets on the result. */
export interface SearchTally {
  omitted: number;
  truncated: boolean;
  lowerBound: boolean;
  /** The paths, as the matches name them, of the secret-bearing files the shown matches quote (content search). */
  secretFiles?: string[];
}

/** rg `--glob` semantics: a glob without `/` matches the base name at any depth, else the relative path. */
export function globMatcher(glob: string): (rel: string) => boolean {
  // A leading `!` makes an rg glob exclude what it matches: picomatch reads it the same way.
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

export interface WalkOptions {
  /**
   * rg's `--glob` overrides: a walked entry the glob matches is taken even when it is hidden or
   * ignored (a directory is then walked into).
   */
  whitelist?: (rel: string) => boolean;
  /** Also yield the directories walked into (after the files beside them), as `kind: 'dir'`. */
  directories?: boolean;
  /**
   * rg `--hidden --no-ignore` with Hermes' prune globs (agent/search_policy.py
   * SEARCH_PRUNE_DIR_NAMES): hidden and ignored entries are walked too, those directories not.
   */
  everything?: boolean;
}

/** Hermes' agent/search_policy.py SEARCH_PRUNE_DIR_NAMES, pruned from a walk of everything. */
const EVERYTHING_PRUNED = new Set([
  '.git', '.hg', '.svn', 'node_modules', 'venv', '.venv', 'site-packages', 'dist-packages', 'vendor', 'third_party',
  'build', 'dist', 'target', 'out', 'coverage', '.next', '.turbo', '.parcel-cache', '.nuxt', '.svelte-kit', '.archive',
  '__pycache__', '.cache', '.Trash', '.tox', '.nox', '.mypy_cache', '.pytest_cache', '.ruff_cache', '.npm', '.yarn',
  '.pnpm-store', '.gradle', '.m2', '.nuget', 'backups', 'backup', '.backups',
]);

interface WalkDir {
  rel: string;
  layers: IgnoreLayer[];
  inRepo: boolean;
  shadowed: boolean;
}

/**
 * Files under `root` in sorted depth-first order, bounded by `budget`. Only rg's own rules decide
 * what is skipped (hidden entries, the ignore files): dependency directories such as node_modules,
 * venv, site-packages or __pycache__ are walked like any other, as both Hermes pins' `rg` (with no
 * prune globs on its search; tools/file_operations.py `_search_with_rg`, `_search_files_rg`) walks
 * them. A large one spends the walk's budget (searchFilesMaxEntries, searchFilesTimeoutSeconds), and the
 * result then says it stopped (`limit_reason`, a warning).
 */
async function* walkFiles(root: SearchRoot, budget: WalkBudget, options: WalkOptions, signal?: AbortSignal): AsyncGenerator<WalkFile> {
  const above = await ancestorLayers(root.abs, root.real, root.confinedTo);
  const rootRepo = await exists(join(root.abs, '.git'));
  const stack: WalkDir[] = [{ rel: '', layers: above.layers, inRepo: above.inRepo, shadowed: false }];
  let first = true;
  while (stack.length > 0) {
    throwIfAborted(signal, 'search_files');
    if (monotonicMs() > budget.deadline) {
      budget.limitReason = 'search_timeout';
      return;
    }
    const here = stack.pop()!;
    const rel = here.rel;
    const dirAbs = rel ? join(root.abs, rel) : root.abs;
    const ownRepo = first ? rootRepo : await exists(join(dirAbs, '.git'));
    first = false;
    const inRepo = here.inRepo || ownRepo;
    const layers = [...here.layers, ...(await dirLayers(dirAbs, inRepo, ownRepo))];
    let names: Array<{ name: string; kind: 'file' | 'dir'; shadowed: boolean }> = [];
    try {
      const dir = await opendir(dirAbs);
      for await (const ent of dir) {
        if (++budget.entries > budget.maxEntries) {
          budget.limitReason = 'entry_limit';
          break;
        }
        if (ent.isSymbolicLink()) continue;
        const isDir = ent.isDirectory();
        if (!isDir && !ent.isFile()) continue;
        const childRel = rel ? `${rel}/${ent.name}` : ent.name;
        // rg's order of precedence: a glob override, then the ignore files, then the hidden rule.
        const verdict = ignoreVerdict(layers, join(dirAbs, ent.name), isDir);
        const shadowed = verdict === 'ignore' || (verdict === null && ent.name.startsWith('.'));
        if (options.everything) {
          if (isDir && EVERYTHING_PRUNED.has(ent.name)) continue;
        } else if (!options.whitelist?.(childRel) && shadowed) continue;
        names.push({ name: ent.name, kind: isDir ? 'dir' : 'file', shadowed: shadowed || here.shadowed });
      }
    } catch {
      continue; // unreadable directory: skipped, like rg's per-entry errors
    }
    names = names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const n of [...names.filter((x) => x.kind === 'file'), ...(options.directories ? names.filter((x) => x.kind === 'dir') : [])]) {
      const childRel = rel ? `${rel}/${n.name}` : n.name;
      yield {
        kind: n.kind,
        shadowed: n.shadowed,
        abs: join(root.abs, childRel),
        rel: childRel,
        display: displayJoin(root.display, childRel),
        checked: { lexical: join(root.abs, childRel), real: join(root.real, childRel) },
      };
    }
    if (budget.limitReason) return;
    const dirs = names.filter((n) => n.kind === 'dir');
    for (let i = dirs.length - 1; i >= 0; i--) stack.push({ rel: rel ? `${rel}/${dirs[i]!.name}` : dirs[i]!.name, layers, inRepo, shadowed: dirs[i]!.shadowed });
  }
}

export async function rootFiles(
  root: SearchRoot,
  budget: WalkBudget,
  signal?: AbortSignal,
  options: WalkOptions = {},
): Promise<AsyncIterable<WalkFile> | WalkFile[]> {
  if (root.isFile) return [{ abs: root.abs, rel: basename(root.abs), display: root.display, checked: { lexical: root.abs, real: root.real } }];
  return walkFiles(root, budget, options, signal);
}
