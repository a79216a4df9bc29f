import { SequenceMatcher } from '../../common/index.js';
import { leadingWhitespace, origToNormMap, strip, unicodeNormalize, type Span } from './text.js';

// Replacement shaping and guards, applied by fuzzyFindAndReplace (fuzzy/) after a strategy
// has found its matches.

function firstMeaningfulLine(text: string): string | null {
  for (const line of text.split('\n')) if (strip(line)) return line;
  return null;
}

/** Re-anchor new_string's indentation from old_string's base indent onto the file region's. */
function reindentReplacement(fileRegion: string, oldString: string, newString: string): string {
  if (!newString) return newString;
  const oldFirst = firstMeaningfulLine(oldString);
  const fileFirst = firstMeaningfulLine(fileRegion);
  if (oldFirst === null || fileFirst === null) return newString;
  const oldIndent = leadingWhitespace(oldFirst);
  const fileIndent = leadingWhitespace(fileFirst);
  if (oldIndent === fileIndent) return newString;
  return newString
    .split('\n')
    .map((line) => {
      if (!strip(line)) return line;
      if (leadingWhitespace(line).startsWith(oldIndent)) return fileIndent + line.slice(oldIndent.length);
      return fileIndent + line.replace(/^[ \t]+/, '');
    })
    .join('\n');
}

function matchedRegions(content: string, matches: Span[]): string {
  return matches.map(([s, e]) => content.slice(s, e)).join('');
}

/** `\t` / `\r` literals become real characters only when the matched region has real ones. */
export function maybeUnescapeNewString(newString: string, content: string, matches: Span[]): string {
  if (!newString.includes('\\t') && !newString.includes('\\r')) return newString;
  const region = matchedRegions(content, matches);
  let out = newString;
  if (out.includes('\\t') && region.includes('\t')) out = out.replace(/\\t/g, '\t');
  if (out.includes('\\r') && region.includes('\r')) out = out.replace(/\\r/g, '\r');
  return out;
}

export function detectEscapeDrift(content: string, matches: Span[], oldString: string, newString: string): string | null {
  if (!newString.includes("\\'") && !newString.includes('\\"')) return null;
  const region = matchedRegions(content, matches);
  for (const suspect of ["\\'", '\\"']) {
    if (newString.includes(suspect) && oldString.includes(suspect) && !region.includes(suspect)) {
      const plain = suspect[1];
      return (
        `Escape-drift detected: old_string and new_string contain the literal sequence ${JSON.stringify(suspect)} but the matched ` +
        'region of the file does not. This is almost always a tool-call serialization artifact where an apostrophe or quote got ' +
        'prefixed with a spurious backslash. Re-read the file with read_file and pass old_string/new_string without ' +
        `backslash-escaping ${JSON.stringify(plain)} characters.`
      );
    }
  }
  return null;
}

/** After a unicode_normalized match, apply only the edits to the file's own text (keeps its Unicode). */
export function preserveUnicodeInReplacement(content: string, matches: Span[], oldString: string, newString: string): string {
  const fileRegion = matchedRegions(content, matches);
  const normOld = unicodeNormalize(oldString);
  if (normOld !== unicodeNormalize(fileRegion)) return newString;
  const o2n = origToNormMap(fileRegion);
  const n2oStart = new Map<number, number>();
  for (let i = 0; i < o2n.length - 1; i++) if (!n2oStart.has(o2n[i]!)) n2oStart.set(o2n[i]!, i);
  const parts: string[] = [];
  for (const [tag, i1, i2, j1, j2] of new SequenceMatcher(normOld, newString).getOpcodes()) {
    if (tag === 'equal') {
      const start = n2oStart.get(i1) ?? 0;
      let end = start;
      while (end < fileRegion.length && o2n[end]! < i2) end++;
      parts.push(fileRegion.slice(start, end));
    } else if (tag === 'replace' || tag === 'insert') {
      parts.push(newString.slice(j1, j2));
    }
  }
  return parts.join('');
}

export function applyReplacements(content: string, matches: Span[], newString: string, oldStringForReindent: string | null): string {
  let result = content;
  for (const [start, end] of [...matches].sort((x, y) => y[0] - x[0])) {
    const replacement = oldStringForReindent !== null ? reindentReplacement(content.slice(start, end), oldStringForReindent, newString) : newString;
    result = result.slice(0, start) + replacement + result.slice(end);
  }
  return result;
}
