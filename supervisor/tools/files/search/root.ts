import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { realRoots } from '../../../platform/roots.js';
import type { CallContext } from '../../../core/tool-types.js';
import { isNotFound } from '../common/index.js';
import { deviceError, readBlockError, resolveAccess, whereLooked, type PathDeps } from '../access/index.js';
import type { SearchRoot } from './walk.js';

// Opening search_files' root (search/index.ts): the access check, and Hermes' "Path not found" with similar names.

/** Hermes' not-found error, naming up to five similar entries of the parent directory. */
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
