import { SIMILARITY_STRATEGIES, STRATEGIES, strategyContextAwareStrict, type StrategyName } from './strategies.js';
import { applyReplacements, detectEscapeDrift, maybeUnescapeNewString, preserveUnicodeInReplacement } from './replace.js';

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
// The strategies live in strategies.ts, the replacement shaping and guards in
// replace.ts, the shared text helpers in text.ts and the "did you mean?" hint in
// hint.ts; this module runs the chain and re-exports the public API.

export type { Span } from './text.js';
export { unicodeNormalize } from './text.js';
export { STRATEGIES, strategyBlockAnchor, strategyContextAware, strategyEscapeNormalized, strategyExact, strategyIndentationFlexible, strategyLineTrimmed, strategyTrimmedBoundary, strategyUnicodeNormalized, strategyWhitespaceNormalized, type StrategyName } from './strategies.js';
export { findClosestLines, noMatchHint } from './hint.js';

type FuzzyErrorKind = 'empty' | 'identical' | 'ambiguous' | 'escape_drift' | 'no_match';

export type FuzzyResult =
  | { ok: true; content: string; count: number; strategy: StrategyName }
  | { ok: false; kind: FuzzyErrorKind; error: string };

// ---------------------------------------------------------------------------------------------
// Entry points

/** How the chain behaves: `stricter` is Hermes 0.22's (release.ts patchStricterFuzzy). */
export interface FuzzyOptions {
  stricter?: boolean;
}

/** Hermes 0.22 `_format_match_locations`: up to five `  L<line>: <text>` rows, then how many more. */
function matchLocations(content: string, matches: ReadonlyArray<readonly [number, number]>, cap = 5): string {
  const rows = matches.slice(0, cap).map(([start]) => {
    const lineNo = content.slice(0, start).split('\n').length;
    const lineStart = content.lastIndexOf('\n', start - 1) + 1;
    let lineEnd = content.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = content.length;
    let snippet = content.slice(lineStart, lineEnd).trim();
    if (snippet.length > 80) snippet = snippet.slice(0, 77) + '...';
    return `  L${lineNo}: ${snippet}`;
  });
  if (matches.length > cap) rows.push(`  ... and ${matches.length - cap} more`);
  return rows.join('\n');
}

/**
 * Hermes 0.22 `boundary_note`: the note of an edit whose span a similarity strategy found, or null.
 * `target` names what the boundaries are ("old_string's", "the hunk's"), `where` the file.
 */
export function boundaryNote(strategies: readonly StrategyName[], target = "old_string's", where = ''): string | null {
  const used = [...new Set(strategies.filter((s) => SIMILARITY_STRATEGIES.has(s)))];
  if (used.length === 0) return null;
  return (
    `Non-exact match (strategy: ${used.join(', ')})${where}. The edit span was located approximately, not matched to ${target} literal boundaries — ` +
    'review the diff below to confirm the change landed exactly where intended (a shifted boundary can duplicate or drop a line just outside the edited region).'
  );
}

/** Hermes 0.22 `is_already_applied`: new_string (8+ characters) is in the file and old_string is not. */
export function isAlreadyApplied(content: string, oldString: string, newString: string): boolean {
  if (!newString || newString.trim().length < 8 || !content.includes(newString)) return false;
  return oldString === newString || !content.includes(oldString);
}

export function fuzzyFindAndReplace(content: string, oldString: string, newString: string, replaceAll = false, options: FuzzyOptions = {}): FuzzyResult {
  const stricter = options.stricter === true;
  if (!oldString) {
    return {
      ok: false,
      kind: 'empty',
      error: stricter
        ? 'old_string is empty — nothing to match. Set old_string to the exact existing text the replacement should replace (read the file first if unsure). ' +
          'To create a new file or fully rewrite one, use write_file instead. Do not re-send this call unchanged.'
        : 'old_string cannot be empty',
    };
  }
  if (stricter && !oldString.trim()) {
    return {
      ok: false,
      kind: 'empty',
      error:
        'old_string is only whitespace — provide non-blank text to match. Set it to the exact existing text the replacement should replace ' +
        '(read the file first if unsure). Do not re-send this call unchanged.',
    };
  }
  if (oldString === newString) {
    return {
      ok: false,
      kind: 'identical',
      error: stricter
        ? 'No edit was applied because old_string and new_string are identical. Provide the existing text to replace in old_string and the changed replacement text in new_string.'
        : 'old_string and new_string are identical',
    };
  }

  for (const [name, plain] of STRATEGIES) {
    const strategy = stricter && name === 'context_aware' ? strategyContextAwareStrict : plain;
    const matches = strategy(content, oldString);
    if (matches.length === 0) continue;
    if (matches.length > 1 && !replaceAll) {
      return {
        ok: false,
        kind: 'ambiguous',
        error:
          `Found ${matches.length} matches for old_string. Provide more context to make it unique, or use replace_all=True.` +
          (stricter ? ` Matches:\n${matchLocations(content, matches)}` : ''),
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
