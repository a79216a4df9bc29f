import { el } from './dom.js';

// The diff a patch or write_file result carries, cut into its files and shown line by line.

/** A unified diff, one line per row, coloured by its first character. */
export function diffBlock(lines: readonly string[]): HTMLPreElement {
  const pre = el('pre', 'diff');
  for (const line of lines) {
    const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
    pre.append(el('span', `diff-line diff-${kind}`, line), '\n');
  }
  return pre;
}

/**
 * One file of a diff: its heading (the path once, and what became of the file), the paths it names,
 * and the lines below its headers. A stretch before any header has neither heading nor path.
 */
export interface DiffFile {
  heading: string | undefined;
  paths: string[];
  lines: string[];
}

/** A hunk's header and its line counts (a count left out is 1). */
const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
/** What V4A patches write for a file moved or deleted without a diff (`# Moved: a -> b`). */
const DIFF_NOTE = /^# (Moved|Deleted): (.*)$/;

/**
 * A unified diff cut into its files: each `--- ` line followed by a `+++ ` line starts one, and so
 * does a V4A note (`# Moved: a -> b`, `# Deleted: a`). Their git-style `a/` and `b/` prefixes go
 * (Hermes writes them before absolute paths too: `a//tmp/x`), and so does a timestamp after a tab.
 */
export function diffFiles(diff: string): DiffFile[] {
  const all = diff.replace(/\n$/, '').split('\n');
  const files: DiffFile[] = [];
  let current: DiffFile | undefined;
  // Lines a hunk still holds, from its `@@ -a,b +c,d @@` counts: inside a hunk, a removed `-- x`
  // before an added `++ y` reads `--- x` / `+++ y` and is no file header.
  let oldLeft = 0;
  let newLeft = 0;
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!;
    const next = all[i + 1];
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith('-')) oldLeft--;
      else if (line.startsWith('+')) newLeft--;
      else if (!line.startsWith('\\')) {
        oldLeft--;
        newLeft--;
      }
      current!.lines.push(line);
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    }
    const note = DIFF_NOTE.exec(line);
    if (note) {
      const [from, to] = note[2]!.split(' -> ');
      current = { heading: note[1] === 'Moved' && to !== undefined ? `${from} → ${to} (moved)` : `${note[2]} (deleted)`, paths: [from!, ...(to === undefined ? [] : [to])], lines: [] };
      files.push(current);
      continue;
    }
    if (line.startsWith('--- ') && next?.startsWith('+++ ')) {
      const rawFrom = line.slice(4).replace(/\t.*$/, '');
      const rawTo = next.slice(4).replace(/\t.*$/, '');
      // The prefixes are git's convention only when both headers carry them (or one is /dev/null).
      const git = (rawFrom.startsWith('a/') || rawFrom === '/dev/null') && (rawTo.startsWith('b/') || rawTo === '/dev/null');
      const path = (p: string) => (p === '/dev/null' ? undefined : git ? p.slice(2) : p);
      const from = path(rawFrom);
      const to = path(rawTo);
      const heading = from === undefined ? `${to} (new file)` : to === undefined ? `${from} (deleted)` : from === to ? to : `${from} → ${to}`;
      current = { heading, paths: [from, to].filter((p): p is string => p !== undefined), lines: [] };
      files.push(current);
      i++;
      continue;
    }
    if (!current) {
      current = { heading: undefined, paths: [], lines: [] };
      files.push(current);
    }
    current.lines.push(line);
  }
  return files;
}
