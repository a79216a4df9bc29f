import { SIMILARITY_STRATEGIES, STRATEGIES, type StrategyName } from './fuzzy-strategies.js';
import { applyReplacements, detectEscapeDrift, maybeUnescapeNewString, preserveUnicodeInReplacement } from './fuzzy-replace.js';

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
//   9 context_aware          at least half the lines ≥ 80% similar
//
// A unique match is required unless replace_all. One step beyond upstream: the similarity
// strategies (8, 9) never serve replace_all with several matches — their matches can overlap, and
// upstream then replaces far more than old_string (a whole file, in the worst case). After a non-exact match the replacement is re-indented to the file's
// indentation, `\t`/`\r` literals are unescaped when the file region has the real characters,
// unicode_normalized keeps the file's own Unicode in unchanged spans, and the escape-drift guard
// refuses edits that look like a transport artifact. Error texts are upstream's, word for word.
//
// The strategies live in fuzzy-strategies.ts, the replacement shaping and guards in
// fuzzy-replace.ts, the shared text helpers in fuzzy-text.ts and the "did you mean?" hint in
// fuzzy-hint.ts; this module runs the chain and re-exports the public API.

export type { Span } from './fuzzy-text.js';
export { unicodeNormalize } from './fuzzy-text.js';
export {
  STRATEGIES,
  strategyBlockAnchor,
  strategyContextAware,
  strategyEscapeNormalized,
  strategyExact,
  strategyIndentationFlexible,
  strategyLineTrimmed,
  strategyTrimmedBoundary,
  strategyUnicodeNormalized,
  strategyWhitespaceNormalized,
  type StrategyName,
} from './fuzzy-strategies.js';
export { findClosestLines, noMatchHint } from './fuzzy-hint.js';

type FuzzyErrorKind = 'empty' | 'identical' | 'ambiguous' | 'escape_drift' | 'no_match';

export type FuzzyResult =
  | { ok: true; content: string; count: number; strategy: StrategyName }
  | { ok: false; kind: FuzzyErrorKind; error: string };

// ---------------------------------------------------------------------------------------------
// Entry points

export function fuzzyFindAndReplace(content: string, oldString: string, newString: string, replaceAll = false): FuzzyResult {
  if (!oldString) return { ok: false, kind: 'empty', error: 'old_string cannot be empty' };
  if (oldString === newString) return { ok: false, kind: 'identical', error: 'old_string and new_string are identical' };

  for (const [name, strategy] of STRATEGIES) {
    const matches = strategy(content, oldString);
    if (matches.length === 0) continue;
    if (matches.length > 1 && !replaceAll) {
      return {
        ok: false,
        kind: 'ambiguous',
        error: `Found ${matches.length} matches for old_string. Provide more context to make it unique, or use replace_all=True.`,
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
    }
    let effectiveNew = maybeUnescapeNewString(newString, content, matches);
    if (name === 'unicode_normalized') effectiveNew = preserveUnicodeInReplacement(content, matches, oldString, effectiveNew);
    const replaced = applyReplacements(content, matches, effectiveNew, name !== 'exact' ? oldString : null);
    return { ok: true, content: replaced, count: matches.length, strategy: name };
  }
  return { ok: false, kind: 'no_match', error: 'Could not find a match for old_string in the file' };
}
