import { SequenceMatcher, similarity } from '../../common/index.js';
import { blockEquals, findNormalizedLineMatches, LineIndex, lstrip, mapNormToOrig, origToNormMap, strip, unicodeNormalize, type Span } from './text.js';

// The individual fuzzy-match strategies, in chain order (see index.ts for the chain itself).

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
  // Upstream: a block matches when at least half of its lines are ≥ 80% similar (stripped) to the
  // pattern's lines at the same offset.
  const patternLines = pattern.split('\n');
  const contentLines = content.split('\n');
  const n = patternLines.length;
  const index = new LineIndex(contentLines, content.length);
  const stripped = patternLines.map((l) => strip(l));
  const out: Span[] = [];
  for (let i = 0; i + n <= contentLines.length; i++) {
    let high = 0;
    for (let k = 0; k < n; k++) if (similarity(stripped[k]!, strip(contentLines[i + k]!), 0.8) >= 0.8) high++;
    if (high >= n * 0.5) out.push(index.span(i, i + n));
  }
  return out;
}

/**
 * Hermes 0.22's context_aware (`_strategy_context_aware`): the first and the last line, and every
 * non-blank line, at least 80% similar (stripped) to the pattern's line at the same offset.
 */
export function strategyContextAwareStrict(content: string, pattern: string): Span[] {
  const patternLines = pattern.split('\n');
  const contentLines = content.split('\n');
  const n = patternLines.length;
  if (n > contentLines.length) return [];
  const index = new LineIndex(contentLines, content.length);
  const stripped = patternLines.map((l) => strip(l));
  const sim = (a: string, b: string) => (a === b ? 1 : similarity(a, b, 0.8));
  const out: Span[] = [];
  for (let i = 0; i + n <= contentLines.length; i++) {
    if (sim(stripped[0]!, strip(contentLines[i]!)) < 0.8) continue;
    if (sim(stripped[n - 1]!, strip(contentLines[i + n - 1]!)) < 0.8) continue;
    let all = true;
    for (let k = 0; k < n && all; k++) if (stripped[k] && sim(stripped[k]!, strip(contentLines[i + k]!)) < 0.8) all = false;
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

/** The strategies that match by similarity, not by equality after normalising. */
export const SIMILARITY_STRATEGIES = new Set<StrategyName>(['block_anchor', 'context_aware']);
