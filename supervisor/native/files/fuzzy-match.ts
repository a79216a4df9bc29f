import { SequenceMatcher, similarity } from './sequence-matcher.js';

// Hermes' fuzzy find-and-replace (tools/fuzzy_match.py), re-implemented: a chain of increasingly
// tolerant strategies, tried in order, the first that finds anything wins:
//
//   1 exact                  plain substring search (non-overlapping)
//   2 line_trimmed           every line compared with surrounding whitespace stripped
//   3 whitespace_normalized  runs of spaces/tabs collapsed to one space
//   4 indentation_flexible   leading whitespace ignored
//   5 escape_normalized      `\n` `\t` `\r` literals in old_string turned into the real characters
//   6 trimmed_boundary       only the first and last line trimmed
//   7 unicode_normalized     smart quotes, dashes, ellipsis, exotic spaces mapped to ASCII
//   8 block_anchor           first and last lines anchor a block; the middle must be similar
//   9 context_aware          anchored, and every non-blank line ≥ 80% similar
//
// A unique match is required unless replace_all; the similarity strategies (8, 9) never serve
// replace_all with several matches. After a non-exact match the replacement is re-indented to the
// file's indentation, `\t`/`\r` literals are unescaped when the file region has the real
// characters, unicode_normalized keeps the file's own Unicode in unchanged spans, and two guards
// refuse edits that look like transport artifacts (escape drift, rogue indentation).

export type Span = [number, number];

export type StrategyName =
  | 'exact'
  | 'line_trimmed'
  | 'whitespace_normalized'
  | 'indentation_flexible'
  | 'escape_normalized'
  | 'trimmed_boundary'
  | 'unicode_normalized'
  | 'block_anchor'
  | 'context_aware';

export type FuzzyErrorKind = 'empty' | 'whitespace_only' | 'identical' | 'ambiguous' | 'escape_drift' | 'rogue_indent' | 'no_match';

export type FuzzyResult =
  | { ok: true; content: string; count: number; strategy: StrategyName }
  | { ok: false; kind: FuzzyErrorKind; error: string };

// ---------------------------------------------------------------------------------------------
// Text helpers

/** Python `str.strip()` / `lstrip()` (whitespace = `str.isspace`, close enough to JS trim). */
const strip = (s: string): string => s.trim();
const lstrip = (s: string): string => s.trimStart();

/** Python `str.splitlines()` for the "did you mean" hint: no trailing empty element. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '' && /[\r\n]$/.test(text)) lines.pop();
  if (text === '') return [];
  return lines;
}

const UNICODE_MAP: ReadonlyMap<string, string> = new Map([
  ['\u201c', '"'], ['\u201d', '"'],
  ['\u2018', "'"], ['\u2019', "'"],
  ['\u2014', '--'], ['\u2013', '-'],
  ['\u2026', '...'], ['\u00a0', ' '],
  ['\u2212', '-'],
  ['\u2000', ' '], ['\u2001', ' '], ['\u2002', ' '], ['\u2003', ' '], ['\u2004', ' '], ['\u2005', ' '],
  ['\u2006', ' '], ['\u2007', ' '], ['\u2008', ' '], ['\u2009', ' '], ['\u200a', ' '],
  ['\u202f', ' '], ['\u205f', ' '], ['\u3000', ' '],
]);
const UNICODE_RE = new RegExp(`[${[...UNICODE_MAP.keys()].join('')}]`, 'g');

export function unicodeNormalize(text: string): string {
  return text.replace(UNICODE_RE, (ch) => UNICODE_MAP.get(ch) ?? ch);
}

/** For each original index, its index in the unicode-normalised text (plus a sentinel). */
function origToNormMap(original: string): number[] {
  const out: number[] = [];
  let pos = 0;
  for (const ch of original.split('')) {
    out.push(pos);
    pos += UNICODE_MAP.get(ch)?.length ?? 1;
  }
  out.push(pos);
  return out;
}

function mapNormToOrig(origToNorm: number[], normMatches: Span[]): Span[] {
  const normToOrigStart = new Map<number, number>();
  for (let i = 0; i < origToNorm.length - 1; i++) if (!normToOrigStart.has(origToNorm[i]!)) normToOrigStart.set(origToNorm[i]!, i);
  const origLen = origToNorm.length - 1;
  const out: Span[] = [];
  for (const [ns, ne] of normMatches) {
    const start = normToOrigStart.get(ns);
    if (start === undefined) continue;
    let end = start;
    while (end < origLen && origToNorm[end]! < ne) end++;
    out.push([start, end]);
  }
  return out;
}

/** Character offsets of lines [startLine, endLine) in the text those lines were split from. */
class LineIndex {
  private readonly offsets: number[];

  constructor(
    readonly lines: string[],
    private readonly contentLength: number,
  ) {
    this.offsets = [0];
    for (const line of lines) this.offsets.push(this.offsets[this.offsets.length - 1]! + line.length + 1);
  }

  span(startLine: number, endLine: number): Span {
    const start = this.offsets[startLine]!;
    const end = Math.min(this.contentLength, this.offsets[endLine]! - 1);
    return [start, end];
  }
}

function blockEquals(haystack: string[], at: number, needle: string[]): boolean {
  for (let k = 0; k < needle.length; k++) if (haystack[at + k] !== needle[k]) return false;
  return true;
}

function findNormalizedLineMatches(content: string, contentLines: string[], normalizedLines: string[], patternNormalizedLines: string[]): Span[] {
  const index = new LineIndex(contentLines, content.length);
  const out: Span[] = [];
  const n = patternNormalizedLines.length;
  for (let i = 0; i + n <= normalizedLines.length; i++) {
    if (blockEquals(normalizedLines, i, patternNormalizedLines)) out.push(index.span(i, i + n));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Strategies

export function strategyExact(content: string, pattern: string): Span[] {
  const out: Span[] = [];
  if (pattern === '') return out;
  let from = 0;
  for (;;) {
    const pos = content.indexOf(pattern, from);
    if (pos === -1) break;
    out.push([pos, pos + pattern.length]);
    from = pos + pattern.length;
  }
  return out;
}

export function strategyLineTrimmed(content: string, pattern: string): Span[] {
  const contentLines = content.split('\n');
  return findNormalizedLineMatches(content, contentLines, contentLines.map(strip), pattern.split('\n').map(strip));
}

function collapseSpaces(s: string): string {
  return s.replace(/[ \t]+/g, ' ');
}

export function strategyWhitespaceNormalized(content: string, pattern: string): Span[] {
  const normContent = collapseSpaces(content);
  const normMatches = strategyExact(normContent, collapseSpaces(pattern));
  if (normMatches.length === 0) return [];
  // orig index -> normalised index: every char of a space/tab run maps to the run's one space.
  const origToNorm: number[] = [];
  let n = 0;
  for (let i = 0; i < content.length; i++) {
    const isWs = content[i] === ' ' || content[i] === '\t';
    origToNorm.push(n);
    if (!isWs) n++;
    else if (i + 1 >= content.length || (content[i + 1] !== ' ' && content[i + 1] !== '\t')) n++;
  }
  const startOf = new Map<number, number>();
  const endOf = new Map<number, number>();
  origToNorm.forEach((np, op) => {
    if (!startOf.has(np)) startOf.set(np, op);
    endOf.set(np, op);
  });
  const out: Span[] = [];
  for (const [ns, ne] of normMatches) {
    const start = startOf.get(ns) ?? origToNorm.findIndex((v) => v >= ns);
    const last = endOf.get(ne - 1);
    let end = last !== undefined ? last + 1 : start + (ne - ns);
    if (ne < normContent.length && normContent[ne - 1] === ' ') {
      while (end < content.length && (content[end] === ' ' || content[end] === '\t')) end++;
    }
    out.push([start, Math.min(end, content.length)]);
  }
  return out;
}

export function strategyIndentationFlexible(content: string, pattern: string): Span[] {
  const contentLines = content.split('\n');
  return findNormalizedLineMatches(content, contentLines, contentLines.map(lstrip), pattern.split('\n').map(lstrip));
}

export function strategyEscapeNormalized(content: string, pattern: string): Span[] {
  const unescaped = pattern.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\r/g, '\r');
  if (unescaped === pattern) return [];
  return strategyExact(content, unescaped);
}

export function strategyTrimmedBoundary(content: string, pattern: string): Span[] {
  const patternLines = pattern.split('\n');
  patternLines[0] = strip(patternLines[0]!);
  if (patternLines.length > 1) patternLines[patternLines.length - 1] = strip(patternLines[patternLines.length - 1]!);
  const contentLines = content.split('\n');
  const index = new LineIndex(contentLines, content.length);
  const n = patternLines.length;
  const out: Span[] = [];
  for (let i = 0; i + n <= contentLines.length; i++) {
    const block = contentLines.slice(i, i + n);
    block[0] = strip(block[0]!);
    if (n > 1) block[n - 1] = strip(block[n - 1]!);
    if (blockEquals(block, 0, patternLines)) out.push(index.span(i, i + n));
  }
  return out;
}

export function strategyUnicodeNormalized(content: string, pattern: string): Span[] {
  const normPattern = unicodeNormalize(pattern);
  const normContent = unicodeNormalize(content);
  if (normContent === content && normPattern === pattern) return [];
  let normMatches = strategyExact(normContent, normPattern);
  if (normMatches.length === 0) normMatches = strategyLineTrimmed(normContent, normPattern);
  if (normMatches.length === 0) return [];
  return mapNormToOrig(origToNormMap(content), normMatches);
}

export function strategyBlockAnchor(content: string, pattern: string): Span[] {
  const patternLines = unicodeNormalize(pattern).split('\n');
  if (patternLines.length < 2) return [];
  const first = strip(patternLines[0]!);
  const last = strip(patternLines[patternLines.length - 1]!);
  const normLines = unicodeNormalize(content).split('\n');
  const index = new LineIndex(content.split('\n'), content.length);
  const n = patternLines.length;
  const candidates: number[] = [];
  for (let i = 0; i + n <= normLines.length; i++) {
    if (strip(normLines[i]!) === first && strip(normLines[i + n - 1]!) === last) candidates.push(i);
  }
  // 0.50 for a unique candidate, 0.70 when several compete (upstream raised these from 0.10/0.30).
  const threshold = candidates.length === 1 ? 0.5 : 0.7;
  const patternMiddle = patternLines.slice(1, -1).join('\n');
  const out: Span[] = [];
  for (const i of candidates) {
    const sim = n <= 2 ? 1 : new SequenceMatcher(normLines.slice(i + 1, i + n - 1).join('\n'), patternMiddle).ratio();
    if (sim >= threshold) out.push(index.span(i, i + n));
  }
  return out;
}

export function strategyContextAware(content: string, pattern: string): Span[] {
  const patternLines = pattern.split('\n');
  const contentLines = content.split('\n');
  const n = patternLines.length;
  if (n > contentLines.length) return [];
  const ANCHOR = 0.8;
  const firstPat = strip(patternLines[0]!);
  const lastPat = strip(patternLines[n - 1]!);
  const index = new LineIndex(contentLines, content.length);
  const out: Span[] = [];
  for (let i = 0; i + n <= contentLines.length; i++) {
    if (similarity(firstPat, strip(contentLines[i]!), ANCHOR) < ANCHOR) continue;
    if (similarity(lastPat, strip(contentLines[i + n - 1]!), ANCHOR) < ANCHOR) continue;
    let all = true;
    for (let k = 0; k < n; k++) {
      const p = strip(patternLines[k]!);
      if (!p) continue; // blank pattern lines do not constrain the match
      if (similarity(p, strip(contentLines[i + k]!), 0.8) < 0.8) {
        all = false;
        break;
      }
    }
    if (all) out.push(index.span(i, i + n));
  }
  return out;
}

export const STRATEGIES: ReadonlyArray<readonly [StrategyName, (content: string, pattern: string) => Span[]]> = [
  ['exact', strategyExact],
  ['line_trimmed', strategyLineTrimmed],
  ['whitespace_normalized', strategyWhitespaceNormalized],
  ['indentation_flexible', strategyIndentationFlexible],
  ['escape_normalized', strategyEscapeNormalized],
  ['trimmed_boundary', strategyTrimmedBoundary],
  ['unicode_normalized', strategyUnicodeNormalized],
  ['block_anchor', strategyBlockAnchor],
  ['context_aware', strategyContextAware],
];

const SIMILARITY_STRATEGIES = new Set<StrategyName>(['block_anchor', 'context_aware']);

// ---------------------------------------------------------------------------------------------
// Replacement shaping and guards

function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

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
function maybeUnescapeNewString(newString: string, content: string, matches: Span[]): string {
  if (!newString.includes('\\t') && !newString.includes('\\r')) return newString;
  const region = matchedRegions(content, matches);
  let out = newString;
  if (out.includes('\\t') && region.includes('\t')) out = out.replace(/\\t/g, '\t');
  if (out.includes('\\r') && region.includes('\r')) out = out.replace(/\\r/g, '\r');
  return out;
}

function detectEscapeDrift(content: string, matches: Span[], oldString: string, newString: string): string | null {
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

const OPENS_BLOCK = /[:{(]$/;

function detectRogueIndent(oldString: string, newString: string): string | null {
  const oldLines = oldString.split('\n').filter((l) => strip(l));
  const newLines = newString.split('\n').filter((l) => strip(l));
  if (oldLines.length === 0 || newLines.length === 0) return null;
  const maxOld = Math.max(...oldLines.map((l) => leadingWhitespace(l).length));
  if (oldLines.some((l) => OPENS_BLOCK.test(l.trimEnd()))) return null;
  if (newLines.some((l) => OPENS_BLOCK.test(l.trimEnd()))) return null;
  const deeper = newLines.filter((l) => leadingWhitespace(l).length > maxOld);
  if (deeper.length === 0) return null;
  const sample = strip(deeper[0]!).slice(0, 60);
  return (
    `Suspicious indentation in new_string: ${deeper.length} line(s) indented deeper than old_string's max indent (${maxOld} spaces), ` +
    "but neither old_string nor new_string opens a nesting block (':', '{', '('). Likely a model indent typo — check the " +
    `indentation of: ${JSON.stringify(sample)}`
  );
}

/** After a unicode_normalized match, apply only the edits to the file's own text (keeps its Unicode). */
function preserveUnicodeInReplacement(content: string, matches: Span[], oldString: string, newString: string): string {
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

function applyReplacements(content: string, matches: Span[], newString: string, oldStringForReindent: string | null): string {
  let result = content;
  for (const [start, end] of [...matches].sort((x, y) => y[0] - x[0])) {
    const replacement = oldStringForReindent !== null ? reindentReplacement(content.slice(start, end), oldStringForReindent, newString) : newString;
    result = result.slice(0, start) + replacement + result.slice(end);
  }
  return result;
}

function formatMatchLocations(content: string, matches: Span[], cap = 5): string {
  const rows: string[] = [];
  for (const [start] of matches.slice(0, cap)) {
    let lineNo = 1;
    for (let i = content.indexOf('\n'); i !== -1 && i < start; i = content.indexOf('\n', i + 1)) lineNo++;
    const lineStart = content.lastIndexOf('\n', start - 1) + 1;
    let lineEnd = content.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = content.length;
    let snippet = strip(content.slice(lineStart, lineEnd));
    if (snippet.length > 80) snippet = snippet.slice(0, 77) + '...';
    rows.push(`  L${lineNo}: ${snippet}`);
  }
  if (matches.length > cap) rows.push(`  ... and ${matches.length - cap} more`);
  return rows.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Entry points

export function fuzzyFindAndReplace(content: string, oldString: string, newString: string, replaceAll = false): FuzzyResult {
  if (!oldString) return { ok: false, kind: 'empty', error: 'old_string cannot be empty' };
  if (!strip(oldString)) {
    return { ok: false, kind: 'whitespace_only', error: 'old_string is only whitespace — provide non-blank text to match' };
  }
  if (oldString === newString) return { ok: false, kind: 'identical', error: 'old_string and new_string are identical' };

  for (const [name, strategy] of STRATEGIES) {
    const matches = strategy(content, oldString);
    if (matches.length === 0) continue;
    if (matches.length > 1 && !replaceAll) {
      return {
        ok: false,
        kind: 'ambiguous',
        error:
          `Found ${matches.length} matches for old_string. Provide more context to make it unique, or use replace_all=true. ` +
          `Matches:\n${formatMatchLocations(content, matches)}`,
      };
    }
    if (replaceAll && matches.length > 1 && SIMILARITY_STRATEGIES.has(name)) {
      return {
        ok: false,
        kind: 'ambiguous',
        error:
          `Found ${matches.length} approximate matches via the '${name}' strategy; replace_all only applies to exact matches. ` +
          'Provide the precise text (whitespace included) so an exact/line-trimmed match can be made.',
      };
    }
    if (name !== 'exact') {
      const drift = detectEscapeDrift(content, matches, oldString, newString);
      if (drift) return { ok: false, kind: 'escape_drift', error: drift };
      const indent = detectRogueIndent(oldString, newString);
      if (indent) return { ok: false, kind: 'rogue_indent', error: indent };
    }
    let effectiveNew = maybeUnescapeNewString(newString, content, matches);
    if (name === 'unicode_normalized') effectiveNew = preserveUnicodeInReplacement(content, matches, oldString, effectiveNew);
    const replaced = applyReplacements(content, matches, effectiveNew, name !== 'exact' ? oldString : null);
    return { ok: true, content: replaced, count: matches.length, strategy: name };
  }
  return { ok: false, kind: 'no_match', error: 'Could not find a match for old_string in the file' };
}

/**
 * Hermes `is_already_applied`: the edit is already in the file (new_string present verbatim and
 * old_string gone), so a re-sent patch becomes a success-shaped no-op instead of an error.
 */
export function isAlreadyApplied(content: string, oldString: string, newString: string): boolean {
  if (!newString || strip(newString).length < 8) return false;
  if (!content.includes(newString)) return false;
  if (oldString === newString) return true;
  return !content.includes(oldString);
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
