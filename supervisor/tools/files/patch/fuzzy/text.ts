// Text helpers shared by the fuzzy-match strategies (strategies.ts), the replacement shaping
// and guards (replace.ts) and the "did you mean?" hint (hint.ts).

export type Span = [number, number];

/** Python `str.strip()` / `lstrip()` (whitespace = `str.isspace`, close enough to JS trim). */
export const strip = (s: string): string => s.trim();
export const lstrip = (s: string): string => s.trimStart();

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
export function origToNormMap(original: string): number[] {
  const out: number[] = [];
  let pos = 0;
  for (const ch of original.split('')) {
    out.push(pos);
    pos += UNICODE_MAP.get(ch)?.length ?? 1;
  }
  out.push(pos);
  return out;
}

export function mapNormToOrig(origToNorm: number[], normMatches: Span[]): Span[] {
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
export class LineIndex {
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

export function blockEquals(haystack: string[], at: number, needle: string[]): boolean {
  for (let k = 0; k < needle.length; k++) if (haystack[at + k] !== needle[k]) return false;
  return true;
}

export function findNormalizedLineMatches(content: string, contentLines: string[], normalizedLines: string[], patternNormalizedLines: string[]): Span[] {
  const index = new LineIndex(contentLines, content.length);
  const out: Span[] = [];
  const n = patternNormalizedLines.length;
  for (let i = 0; i + n <= normalizedLines.length; i++) {
    if (blockEquals(normalizedLines, i, patternNormalizedLines)) out.push(index.span(i, i + n));
  }
  return out;
}

export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}
