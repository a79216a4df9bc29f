import { stat } from 'node:fs/promises';
import { throwIfAborted } from '../common/index.js';
import { readBlockMessage } from '../access/index.js';
import { globMatcher, rootFiles, type SearchPage, type SearchScope, type SearchTally } from './walk.js';

// search_files target "files": a glob over the walked paths (search/index.ts describes the tool).
// Following Hermes 0.19: every file, newest first. Following 0.22 (`order`): in the walk's own order
// ('discovery') or newest first ('modified'), with the matching directories beside the files
// (re-sorted newest first, by whole seconds, when there are any), counted up to offset+limit+1.

/** How a 0.22 file search orders and pages (search/index.ts). */
export type FileOrder = 'discovery' | 'modified';

/** Hermes 0.22's file search (`_search_files_rg` with `_search_directories_with_find`); sets `total_count` and `files` on `result`. */
export async function searchFileNamesOrdered(
  scope: SearchScope,
  pattern: string,
  order: FileOrder,
  { offset, limit }: SearchPage,
  result: Record<string, unknown>,
): Promise<SearchTally> {
  const { root, budget, dirs: hermesDirs, signal } = scope;
  const wrapped = !pattern.includes('/') && !pattern.startsWith('*') ? `*${pattern}` : pattern;
  const matches = globMatcher(wrapped);
  const fetchLimit = offset + limit + 1;
  const files: Array<{ display: string; blocked: boolean; mtime: number }> = [];
  const directories: Array<{ display: string; blocked: boolean; mtime: number }> = [];
  for await (const f of await rootFiles(root, budget, signal, { whitelist: pattern.startsWith('!') ? undefined : matches, directories: true })) {
    throwIfAborted(signal, 'search_files');
    const isDir = f.kind === 'dir';
    if (!root.isFile && !matches(f.rel)) continue;
    // Directories come from `find -name` without hidden ones, and without what git ignores.
    if (isDir && (f.shadowed || f.rel.split('/').some((part) => part.startsWith('.')))) continue;
    const list = isDir ? directories : files;
    if (!isDir && order === 'discovery' && files.length >= fetchLimit) continue;
    const st = await stat(f.abs).catch(() => null);
    if (!st) continue;
    list.push({ display: f.display, blocked: readBlockMessage(f.checked, f.display, hermesDirs) !== null, mtime: st.mtimeMs });
  }
  const newestFirst = (a: { mtime: number; display: string }, b: { mtime: number; display: string }) =>
    b.mtime - a.mtime || (a.display < b.display ? -1 : a.display > b.display ? 1 : 0);
  if (order === 'modified') files.sort(newestFirst);
  let all = files.slice(0, fetchLimit);
  if (directories.length > 0) {
    directories.sort(newestFirst);
    // `_sort_paths_by_mtime`: whole seconds (`stat -c%Y`), newest first, ties kept in order.
    all = [...all, ...directories.slice(0, fetchLimit)]
      .map((e, i) => ({ e, i }))
      .sort((x, y) => Math.floor(y.e.mtime / 1000) - Math.floor(x.e.mtime / 1000) || x.i - y.i)
      .map(({ e }) => e);
  }
  const page = all.slice(offset, offset + limit);
  // Hermes drops the blocked entries from the page, after counting them.
  const omitted = page.filter((e) => e.blocked).length;
  result.total_count = all.length;
  result.files = page.filter((e) => !e.blocked).map((e) => e.display);
  const truncated = all.length > offset + limit;
  return { omitted, truncated, lowerBound: truncated };
}

/** File-name search as Hermes 0.19 does it; sets `total_count` and `files` on `result`. */
export async function searchFileNames(scope: SearchScope, pattern: string, { offset, limit }: SearchPage, result: Record<string, unknown>): Promise<SearchTally> {
  const { root, budget, dirs, signal } = scope;
  let omitted = 0;
  const wrapped = !pattern.includes('/') && !pattern.startsWith('*') ? `*${pattern}` : pattern;
  const matches = globMatcher(wrapped);
  const found: Array<{ display: string; mtime: number }> = [];
  // `rg --files -g GLOB`: the glob is an override, so a hidden or ignored entry it matches is listed
  // (a directory walked into); a file given as the path is listed whatever the glob.
  for await (const f of await rootFiles(root, budget, signal, { whitelist: pattern.startsWith('!') ? undefined : matches })) {
    throwIfAborted(signal, 'search_files');
    if (!root.isFile && !matches(f.rel)) continue;
    if (readBlockMessage(f.checked, f.display, dirs)) {
      omitted++;
      continue;
    }
    const st = await stat(f.abs).catch(() => null);
    if (st) found.push({ display: f.display, mtime: st.mtimeMs });
  }
  found.sort((a, b) => b.mtime - a.mtime || (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
  result.total_count = found.length + omitted; // Hermes' total counts the files it then omits
  result.files = found.slice(offset, offset + limit).map((f) => f.display);
  const truncated = found.length > offset + limit;
  return { omitted, truncated, lowerBound: false };
}
