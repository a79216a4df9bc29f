import { createRequire } from 'node:module';

// Loaded on first use (CommonJS build, so the call sites stay synchronous): an idle gateway never
// needs it, and every module loaded at startup counts against the idle-RSS budget.
let diffLibModule: typeof import('diff') | undefined;
const diffLib = (): typeof import('diff') => (diffLibModule ??= createRequire(import.meta.url)('diff') as typeof import('diff'));

// Unified diffs in the shape Hermes returns (difflib.unified_diff with `a/<path>` / `b/<path>`
// headers, 3 context lines, and difflib's hunk ranges: a one-line range is written `N`, not
// `N,1`), computed with the maintained `diff` package. The only visible difference from difflib: a
// missing final newline is marked with "\ No newline at end of file", which is what
// `patch`/`git apply` expect (difflib runs the last line into the next one).

/** A pathological diff (huge, totally different inputs) gives up after this long. */
const DIFF_TIMEOUT_MS = 2000;

function wholeFileHunk(fromLabel: string, toLabel: string, oldText: string, newText: string): string {
  const split = (t: string): string[] => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
  const oldLines = split(oldText);
  const newLines = split(newText);
  const range = (start: number, n: number): string => (n === 0 ? `${start - 1},0` : n === 1 ? `${start}` : `${start},${n}`);
  return [
    `--- ${fromLabel}`,
    `+++ ${toLabel}`,
    `@@ -${range(1, oldLines.length)} +${range(1, newLines.length)} @@`,
    ...oldLines.map((l) => `-${l}`),
    ...newLines.map((l) => `+${l}`),
    '',
  ].join('\n');
}

/** Unified diff from `fromLabel` to `toLabel`; '' when the texts are equal (like difflib). */
export function unifiedDiff(fromLabel: string, toLabel: string, oldText: string, newText: string): string {
  if (oldText === newText) return '';
  const patch = diffLib().createTwoFilesPatch(fromLabel, toLabel, oldText, newText, undefined, undefined, {
    context: 3,
    headerOptions: diffLib().FILE_HEADERS_ONLY,
    timeout: DIFF_TIMEOUT_MS,
  }) as string | undefined;
  if (patch === undefined) return wholeFileHunk(fromLabel, toLabel, oldText, newText);
  // difflib (format_range_unified) writes a one-line range as its start alone.
  return patch.replace(/^@@ -\S+ \+\S+ @@$/gm, (header: string) => header.replace(/([-+]\d+),1(?= )/g, '$1'));
}

/** `a/<path>` -> `b/<path>` diff of an edited file. */
export function fileDiff(label: string, oldText: string, newText: string): string {
  return unifiedDiff(`a/${label}`, `b/${label}`, oldText, newText);
}
