import { opendir, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { CallContext } from '../../tool-types.js';
import { isNotFound } from './fs-util.js';
import { resolveToolPath } from './confine.js';
import { throwIfAborted, type PathDeps } from './paths.js';
import { checkedPath, deviceError, isBlockedDevice, readBlockError, readBlockMessage, type CheckedPath, type HermesDirs } from './sensitive-paths.js';

// What search_files' two targets share (search-files.ts describes the tool): opening the search
// root, the bounded, rg-like walk beneath it, and rg `--glob` matching of the walked paths.

// Loaded on first use (CommonJS build, so the call sites stay synchronous): an idle gateway never
// needs it, and every module loaded at startup counts against the idle-RSS budget.
let picomatchLibModule: typeof import('picomatch') | undefined;
const picomatchLib = (): typeof import('picomatch') => (picomatchLibModule ??= createRequire(import.meta.url)('picomatch') as typeof import('picomatch'));

export const SEARCH_MAX_ENTRIES = 20_000;
export const SEARCH_DEADLINE_MS = 20_000;
const PRUNE_DIRS = new Set(['node_modules', '__pycache__', 'site-packages', 'venv']);

interface WalkFile {
  abs: string;
  /** Relative to the search root, `/`-separated ('' when the root is the file itself). */
  rel: string;
  display: string;
  checked: CheckedPath;
}

export interface WalkBudget {
  entries: number;
  deadline: number;
  limitReason: string | null;
}

interface SearchRoot {
  abs: string;
  real: string;
  display: string;
  isFile: boolean;
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
}

/** rg `--glob` semantics: a glob without `/` matches the base name at any depth, else the relative path. */
export function globMatcher(glob: string): (rel: string) => boolean {
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

export async function rootFiles(root: { abs: string; real: string; display: string; isFile: boolean }, budget: WalkBudget, signal?: AbortSignal): Promise<AsyncIterable<WalkFile> | WalkFile[]> {
  if (root.isFile) return [{ abs: root.abs, rel: basename(root.abs), display: root.display, checked: { lexical: root.abs, real: root.real } }];
  return walkFiles(root, budget, signal);
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

export async function openRoot(deps: PathDeps, input: string, ctx: CallContext, dirs: HermesDirs): Promise<SearchRoot> {
  const target = await resolveToolPath(deps, input, ctx);
  const checked = await checkedPath(target);
  // read_file's device guard too: a search of /proc/self/maps or /dev/zero must not read it either.
  if (await isBlockedDevice(checked)) throw deviceError(input);
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
