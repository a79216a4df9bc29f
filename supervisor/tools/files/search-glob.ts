import { stat } from 'node:fs/promises';
import { throwIfAborted } from './paths.js';
import { readBlockMessage } from './sensitive-paths.js';
import { globMatcher, rootFiles, type SearchPage, type SearchScope, type SearchTally } from './search-walk.js';

// search_files target "files": a glob over the walked paths, newest first (search-files.ts
// describes the tool).

/** File-name search; sets `total_count` and `files` on `result`. */
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
