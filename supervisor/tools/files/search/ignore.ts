import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { insideAnyRoot } from '../../../platform/roots.js';
import { READ_FLAGS } from '../common/index.js';

// What search_files' walk (search/walk.ts) skips as rg does: the ignore files, read and matched.

// Loaded on first use (CommonJS build, so the call sites stay synchronous): an idle gateway never
// needs it, and every module loaded at startup counts against the idle-RSS budget.
let picomatchLibModule: typeof import('picomatch') | undefined;
export const picomatchLib = (): typeof import('picomatch') => (picomatchLibModule ??= createRequire(import.meta.url)('picomatch') as typeof import('picomatch'));

// rg's ignore files: `.rgignore`, `.ignore` and (inside a git repository only) `.gitignore` and
// `.git/info/exclude`, in that order of precedence, each deeper file before a shallower one, the
// last matching line of a file deciding. Ancestors of the search root count too (`.gitignore` only
// up to the repository's top).
export type IgnoreKind = 'rgignore' | 'ignore' | 'gitignore' | 'exclude';
const IGNORE_KINDS: readonly IgnoreKind[] = ['rgignore', 'ignore', 'gitignore', 'exclude'];
const IGNORE_FILES: ReadonlyArray<[string, IgnoreKind]> = [['.rgignore', 'rgignore'], ['.ignore', 'ignore'], ['.gitignore', 'gitignore']];

export interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  /** Matches the path relative to the ignore file's directory (`/`-separated). */
  match: (rel: string) => boolean;
}

export interface IgnoreLayer {
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

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The ignore files of one directory (`inRepo`: whether git's apply there). */
export async function dirLayers(dir: string, inRepo: boolean, repoTop: boolean): Promise<IgnoreLayer[]> {
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
export function ignoreVerdict(layers: IgnoreLayer[], abs: string, isDir: boolean): 'ignore' | 'whitelist' | null {
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
export async function ancestorLayers(rootAbs: string, rootReal: string, confinedTo: readonly string[] | null): Promise<{ layers: IgnoreLayer[]; inRepo: boolean }> {
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
