import { similarity } from '../../common/index.js';
import { leadingWhitespace, strip } from './text.js';

// The "did you mean?" hint appended to a plain no-match error: the file lines most similar to
// old_string, with context, and a visualised whitespace difference when that is the only one.

/** Python `str.splitlines()` for the "did you mean" hint: no trailing empty element. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '' && /[\r\n]$/.test(text)) lines.pop();
  if (text === '') return [];
  return lines;
}

function visualizeWhitespace(line: string): string {
  const lead = leadingWhitespace(line);
  return [...lead].map((c) => (c === '\t' ? '→' : '·')).join('') + line.slice(lead.length);
}

/** Lines most similar to old_string's first meaningful line, with context, for "did you mean?". */
export function findClosestLines(oldString: string, content: string, contextLines = 2, maxResults = 3): string {
  if (!oldString || !content) return '';
  const oldLines = splitLines(oldString);
  const contentLines = splitLines(content);
  if (oldLines.length === 0 || contentLines.length === 0) return '';
  let anchor = strip(oldLines[0]!);
  if (!anchor) {
    const nonBlank = oldLines.map(strip).filter(Boolean);
    if (nonBlank.length === 0) return '';
    anchor = nonBlank[0]!;
  }
  const scored: Array<[number, number]> = [];
  contentLines.forEach((line, i) => {
    const stripped = strip(line);
    if (!stripped) return;
    const ratio = similarity(anchor, stripped, 0.3);
    if (ratio > 0.3) scored.push([ratio, i]);
  });
  if (scored.length === 0) return '';
  scored.sort((x, y) => y[0] - x[0]);
  const top = scored.slice(0, maxResults);
  const parts: string[] = [];
  const seen = new Set<string>();
  for (const [, idx] of top) {
    const start = Math.max(0, idx - contextLines);
    const end = Math.min(contentLines.length, idx + oldLines.length + contextLines);
    const key = `${start}:${end}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const rows: string[] = [];
    for (let j = start; j < end; j++) rows.push(`${String(j + 1).padStart(4)}| ${contentLines[j]}`);
    parts.push(rows.join('\n'));
  }
  if (parts.length === 0) return '';
  let result = parts.join('\n---\n');
  const best = contentLines[top[0]![1]]!;
  if (strip(best) === anchor && best !== oldLines[0]) {
    result +=
      '\n\nWhitespace difference detected (→ = tab, · = space):\n' +
      `  file has: ${visualizeWhitespace(best)}\n` +
      `  you sent: ${visualizeWhitespace(oldLines[0]!)}\n` +
      "Use the exact whitespace shown in 'file has'.";
  }
  return result;
}

/** "\n\nDid you mean one of these sections?\n…" for plain no-match errors, else "". */
export function noMatchHint(error: string, oldString: string, content: string): string {
  if (!error.startsWith('Could not find')) return '';
  const hint = findClosestLines(oldString, content);
  return hint ? `\n\nDid you mean one of these sections?\n${hint}` : '';
}
