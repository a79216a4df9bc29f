import { open } from 'node:fs/promises';
import { decodeLenient, READ_FLAGS, throwIfAborted } from '../common/index.js';
import { isBlockedDevicePath } from '../access/index.js';
import { rootFiles, type SearchScope } from './walk.js';
import { SEARCH_MAX_FILE_BYTES, sniffEncoding, splitFileLines } from './file-scan.js';

// Hermes 0.22's hint after a content search that found nothing (search/content.ts).

/** Hermes `_ZERO_MATCH_PROBES`: the rg flags of each probe and what it says when it finds something. */
const PROBES: ReadonlyArray<{ probe: 'i' | 'hidden' | 'literal'; say: string }> = [
  { probe: 'i', say: "0 exact matches, but {total} case-insensitive match(es) in {n} file(s): {paths} — the pattern's casing may be wrong." },
  { probe: 'hidden', say: '0 matches in visible files, but {total} match(es) in {n} hidden or gitignored file(s): {paths} — these are excluded by default.' },
  {
    probe: 'literal',
    say: '0 regex matches, but {total} literal match(es) in {n} file(s): {paths} — the pattern contains regex metacharacters that likely need escaping (or pass a simpler substring).',
  },
];
/** What rg prints of at most this many files per probe (`_run_rg_bounded(..., 50)`). */
const PROBE_FILES = 50;
const REGEX_META = /[.[\](){}?*+^$\\|]/;

/**
 * Hermes `_zero_match_probe`: after a content search found nothing, the first of a case-insensitive
 * search, one of hidden and ignored files too, and (for a pattern with regex metacharacters) a
 * literal one that finds something, as a sentence naming up to five files.
 */
export async function zeroMatchProbe(scope: SearchScope, re: RegExp, pattern: string, globOk: ((rel: string) => boolean) | null, whitelist: ((rel: string) => boolean) | undefined): Promise<string | null> {
  const { root, budget, signal } = scope;
  for (const { probe, say } of PROBES) {
    if (probe === 'literal' && !REGEX_META.test(pattern)) continue;
    const probeRe =
      probe === 'i' ? new RegExp(re.source, [...new Set(re.flags + 'gi')].join('')) : probe === 'literal' ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu') : new RegExp(re.source, [...new Set(re.flags + 'g')].join(''));
    let total = 0;
    const files: string[] = [];
    for await (const f of await rootFiles(root, budget, signal, probe === 'hidden' ? { everything: true } : { whitelist })) {
      throwIfAborted(signal, 'search_files');
      if (globOk && !root.isFile && !globOk(f.rel)) continue;
      if (isBlockedDevicePath(f.checked.lexical) || isBlockedDevicePath(f.checked.real)) continue;
      const n = await countMatches(f.abs, probeRe, root.isFile);
      if (n > 0) {
        total += n;
        // rg names no file when it searched just one.
        files.push(root.isFile ? '' : f.display);
        if (files.length >= PROBE_FILES) break;
      }
    }
    if (total > 0) {
      const extra = files.length - 5;
      const paths = files.slice(0, 5).join(', ') + (extra > 0 ? ` (+${extra} more)` : '');
      return say.replace('{total}', String(total)).replace('{n}', String(files.length)).replace('{paths}', paths);
    }
  }
  return null;
}

/**
 * rg --count-matches on one file: every match of the global `re` in its lines. A binary file (a
 * NUL byte) found by the walk has none; one named as the search path is counted all the same.
 */
async function countMatches(abs: string, re: RegExp, explicit: boolean): Promise<number> {
  let bytes: Buffer;
  try {
    const handle = await open(abs, READ_FLAGS);
    try {
      const st = await handle.stat();
      if (!st.isFile() || st.size > SEARCH_MAX_FILE_BYTES) return 0;
      bytes = await handle.readFile();
    } finally {
      await handle.close().catch(() => undefined);
    }
  } catch {
    return 0;
  }
  const { encoding, bom } = sniffEncoding(bytes);
  if (encoding === 'utf-8' && bytes.includes(0) && !explicit) return 0;
  const body = bytes.subarray(bom);
  let n = 0;
  for (const line of splitFileLines(encoding === 'utf-8' ? decodeLenient(body) : new TextDecoder(encoding, { fatal: false }).decode(body))) {
    re.lastIndex = 0;
    for (let m = re.exec(line); m !== null; m = re.exec(line)) {
      n++;
      if (m[0].length === 0) re.lastIndex++;
    }
  }
  return n;
}
