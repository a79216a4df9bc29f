import { open, opendir, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { insideAnyRoot, realRoots } from '../../../platform/roots.js';
import type { CallContext } from '../../../core/tool-types.js';
import { isNotFound, READ_FLAGS, throwIfAborted } from '../common/index.js';
import { deviceError, readBlockError, resolveAccess, whereLooked, type CheckedPath, type HermesDirs, type PathDeps } from '../access/index.js';

// What search_files' two targets share (search/index.ts describes the tool): opening the search
// root, the bounded, rg-like walk beneath it, and rg `--glob` matching of the walked paths.

// Loaded on first use (CommonJS build, so the call sites stay synchronous): an idle gateway never
// needs it, and every module loaded at startup counts against the idle-RSS budget.
let picomatchLibModule: typeof import('picomatch') | undefined;
const picomatchLib = (): typeof import('picomatch') => (picomatchLibModule ??= createRequire(import.meta.url)('picomatch') as typeof import('picomatch'));


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

interface SearchRoot {
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

// rg's ignore files: `.rgignore`, `.ignore` and (inside a git repository only) `.gitignore` and
// `.git/info/exclude`, in that order of precedence, each deeper file before a shallower one, the
// last matching line of a file deciding. Ancestors of the search root count too (`.gitignore` only
// up to the repository's top).
type IgnoreKind = 'rgignore' | 'ignore' | 'gitignore' | 'exclude';
const IGNORE_KINDS: readonly IgnoreKind[] = ['rgignore', 'ignore', 'gitignore', 'exclude'];
const IGNORE_FILES: ReadonlyArray<[string, IgnoreKind]> = [['.rgignore', 'rgignore'], ['.ignore', 'ignore'], ['.gitignore', 'gitignore']];

interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  /** Matches the path relative to the ignore file's directory (`/`-separated). */
  match: (rel: string) => boolean;
}

interface IgnoreLayer {
  dir: string;
  kind: IgnoreKind;
  rules: IgnoreRule[];
}

/** One ignore file's lines as rules (gitignore syntax). */
export function parseIgnoreFile(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    line = line.replace(/(?<!\\)\s+$/, '');
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    if (line === '' || line === '/') continue;
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.replace(/\/+$/, '');
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    let isMatch: (p: string) => boolean;
    try {
      isMatch = picomatchLib()(line, { dot: true });
    } catch {
      continue; // a line git could not use either
    }
    rules.push({ negate, dirOnly, match: anchored ? (rel) => isMatch(rel) : (rel) => isMatch(rel.slice(rel.lastIndexOf('/') + 1)) });
  }
  return rules;
}

/** Ignore files past this size are not read (a real one is a few KiB). */
const IGNORE_FILE_MAX_BYTES = 1024 * 1024;

async function readLayer(dir: string, name: string, kind: IgnoreKind): Promise<IgnoreLayer | null> {
  // Opened non-blocking and checked to be a regular file first: a FIFO or device named .gitignore
  // must not stall (or feed) the search.
  let handle: FileHandle | undefined;
  try {
    handle = await open(join(dir, name), READ_FLAGS);
    const st = await handle.stat();
    if (!st.isFile() || st.size > IGNORE_FILE_MAX_BYTES) return null;
    const rules = parseIgnoreFile((await handle.readFile()).toString('utf8'));
    return rules.length > 0 ? { dir, kind, rules } : null;
  } catch {
    return null;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The ignore files of one directory (`inRepo`: whether git's apply there). */
async function dirLayers(dir: string, inRepo: boolean, repoTop: boolean): Promise<IgnoreLayer[]> {
  const out: IgnoreLayer[] = [];
  for (const [name, kind] of IGNORE_FILES) {
    if (kind === 'gitignore' && !inRepo) continue;
    const layer = await readLayer(dir, name, kind);
    if (layer) out.push(layer);
  }
  if (repoTop) {
    const layer = await readLayer(join(dir, '.git', 'info'), 'exclude', 'exclude');
    if (layer) out.push({ ...layer, dir });
  }
  return out;
}

/**
 * What the layers (shallowest first) say of `abs`: 'ignore', 'whitelist' (a `!` line matched: rg then
 * takes the entry even when it is hidden), or null (no line matched).
 */
function ignoreVerdict(layers: IgnoreLayer[], abs: string, isDir: boolean): 'ignore' | 'whitelist' | null {
  for (const kind of IGNORE_KINDS) {
    for (let i = layers.length - 1; i >= 0; i--) {
      const layer = layers[i]!;
      if (layer.kind !== kind) continue;
      const rel = relative(layer.dir, abs).split('\\').join('/');
      for (let r = layer.rules.length - 1; r >= 0; r--) {
        const rule = layer.rules[r]!;
        if (rule.dirOnly && !isDir) continue;
        if (rule.match(rel)) return rule.negate ? 'whitelist' : 'ignore';
      }
    }
  }
  return null;
}

/**
 * The ignore layers above the search root, and whether the root is inside a git repository. The
 * directories above are those of the root's real path, and (`confinedTo`) only those inside a root:
 * the file tools touch nothing outside their roots, ignore files included.
 */
async function ancestorLayers(rootAbs: string, rootReal: string, confinedTo: readonly string[] | null): Promise<{ layers: IgnoreLayer[]; inRepo: boolean }> {
  const chain: string[] = [];
  for (let d = dirname(rootReal); d !== rootReal; d = dirname(d)) {
    if (confinedTo && !insideAnyRoot(d, confinedTo)) break;
    chain.unshift(d);
    if (d === dirname(d)) break;
  }
  let top = -1;
  for (let i = chain.length - 1; i >= 0; i--) {
    if (await exists(join(chain[i]!, '.git'))) {
      top = i;
      break;
    }
  }
  const rootIsRepo = await exists(join(rootAbs, '.git'));
  // The layers' directories are real paths; the walk's are the root's lexical ones: rebased here.
  const lexical = (d: string) => (rootReal === rootAbs ? d : join(rootAbs, relative(rootReal, d)));
  const layers: IgnoreLayer[] = [];
  for (let i = 0; i < chain.length; i++) {
    for (const layer of await dirLayers(chain[i]!, top !== -1 && i >= top, i === top)) layers.push({ ...layer, dir: lexical(layer.dir) });
  }
  return { layers, inRepo: top !== -1 || rootIsRepo };
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
    if (Date.now() > budget.deadline) {
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

async function pathNotFound(input: string, display: string, absolute: string, where: string): Promise<GatewayError> {
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
  const message = `Path not found: ${input}` + (similar.length > 0 ? `. Similar paths: ${similar.join(', ')}` : '') + where;
  return new GatewayError(ErrorCode.FILE_NOT_FOUND, message, { similar_paths: similar });
}

export async function openRoot(deps: PathDeps, input: string, ctx: CallContext): Promise<SearchRoot> {
  const target = await resolveAccess(deps, input, ctx, 'search');
  // read_file's device guard too: a search of /proc/self/maps or /dev/zero must not read it either.
  if (target.device) throw deviceError(input);
  if (target.blocked) throw readBlockError(target.blocked);
  let st;
  try {
    st = await stat(target.absolute);
  } catch (e) {
    if (isNotFound(e)) throw await pathNotFound(input, target.expanded, target.absolute, whereLooked(deps.access, target.absolute, input));
    throw new GatewayError(ErrorCode.FILE_NOT_FOUND, `Cannot search ${input}: ${(e as Error).message}`);
  }
  if (!st.isFile() && !st.isDirectory()) throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, `Cannot search ${input}: not a regular file or directory.`);
  let display = target.expanded;
  while (display.length > 1 && display.endsWith('/')) display = display.slice(0, -1);
  const confinedTo = deps.access.mode === 'roots' ? await realRoots(deps.access.roots) : null;
  return { abs: target.absolute, real: await realpath(target.absolute), display, isFile: st.isFile(), confinedTo, dirs: target.dirs };
}
