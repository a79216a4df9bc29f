import { basename, spend, type Budget, type SegmentWords } from './command-words.js';
import { deobfuscateWord } from './deobfuscate.js';
import { splitOption, tokensWithSpans } from './shell-tokens.js';

// Hermes' _grep_safe_detection_variant and _quoted_grep_pattern_spans (tools/approval.py): a
// quoted `grep -P` pattern is a regular expression, data rather than a command, so it is blanked
// before the patterns read the command (`grep -P 'rm -rf /'` is not a dangerous rm).

const GREP_OPTIONS_WITH_ARG = new Set(['--after-context', '--before-context', '--binary-files', '--context', '--directories', '--devices', '--exclude', '--exclude-dir', '--exclude-from', '--include', '--label', '--max-count', '--regexp', '--file']);
const GREP_SHORT_WITH_ARG = new Set('ABCDdefm');

/**
 * Hermes' _grep_safe_detection_variant: the command with each quoted `grep -P` pattern blanked
 * (a regex is data, not a command), or 'malformed' when a grep's arguments cannot be read.
 */
export function grepSafeVariant(c: string, words: SegmentWords[], budget: Budget): string | 'malformed' {
  const spans: Array<[number, number]> = [];
  for (const { at, segment, spans: commandWords } of words) {
    for (const [start, , word] of commandWords) {
      const name = basename(deobfuscateWord(word)).toLowerCase();
      if (name !== 'grep' && name !== 'egrep') continue;
      spend(budget, segment.length - start);
      const tokens = tokensWithSpans(segment, start);
      if (tokens === null) return 'malformed';
      const args = tokens.slice(1);
      let pcre = false;
      let explicit = false;
      const patterns: number[] = [];
      let operand: number | null = null;
      let options = true;
      for (let i = 0; i < args.length; i++) {
        const token = args[i]!.value;
        if (options && token === '--') {
          options = false;
          continue;
        }
        if (options && token.startsWith('--')) {
          const [option, value] = splitOption(token);
          if (option === '--perl-regexp') pcre = true;
          if (option === '--regexp' || option === '--file') explicit = true;
          if (GREP_OPTIONS_WITH_ARG.has(option) && value === null) {
            if (i + 1 >= args.length) return 'malformed';
            if (option === '--regexp') patterns.push(i + 1);
            i++;
            continue;
          }
          if (option === '--regexp' && value !== null) patterns.push(i);
          continue;
        }
        if (options && token.startsWith('-') && token !== '-') {
          const chars = token.slice(1);
          for (let j = 0; j < chars.length; j++) {
            const ch = chars[j]!;
            if (ch === 'P') pcre = true;
            if (ch === 'e' || ch === 'f') explicit = true;
            if (GREP_SHORT_WITH_ARG.has(ch)) {
              if (j + 1 < chars.length) {
                if (ch === 'e') patterns.push(i);
              } else {
                if (i + 1 >= args.length) return 'malformed';
                if (ch === 'e') patterns.push(i + 1);
                i++;
              }
              break;
            }
          }
          continue;
        }
        operand ??= i;
      }
      if (!explicit) {
        // Hermes stops reading the command at the first grep without a pattern operand.
        if (operand === null) return pcre ? 'malformed' : c;
        patterns.push(operand);
      }
      if (pcre) for (const index of patterns) if (args[index]!.inert) spans.push([at + args[index]!.start, at + args[index]!.end]);
    }
  }
  return blank(c, spans);
}

function blank(c: string, spans: Array<[number, number]>): string {
  let out = '';
  let done = 0;
  for (const [from, to] of spans) {
    out += c.slice(done, from) + ' '.repeat(to - from);
    done = to;
  }
  return out + c.slice(done);
}
