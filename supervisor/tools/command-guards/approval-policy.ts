import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validRange } from '@renovatebot/pep440';
import * as v from 'valibot';
import { packageRoot } from '../../../shared/package-root.js';

// The approval guard's patterns: HARDLINE_PATTERNS and DANGEROUS_PATTERNS of Hermes' tools/approval.py
// (0.19) and tools/approval_detection.py (later Hermes), the union of every supported Hermes, as data
// in policy/dangerous-commands.json, read, validated and compiled once.

/** Which text of a command a pattern reads. */
export type PatternText =
  /** The normalised, lowercased command (and its variants): every pattern by default. */
  | 'lower'
  /** The same with every flag word (`-d`, `--DATA`) in its own case: for patterns with a case-sensitive `(?-i:…)` group (Hermes' _lower_preserving_flags). */
  | 'flags'
  /** The lowercased command with the text inside quotes blanked (Hermes' _mask_quoted_prose): quoted globs and braces are data. */
  | 'masked';

export interface CommandPattern {
  key: string;
  re: RegExp;
  /** Matched against the normalised command only, after the list's other patterns. */
  commandOnly: boolean;
  text: PatternText;
  /** The Hermes versions whose pattern tables carry `key` (a PEP 440 specifier); undefined for the gateway's own. */
  hermes: string | undefined;
}

export interface ApprovalPolicy {
  readonly hardline: readonly CommandPattern[];
  readonly dangerous: readonly CommandPattern[];
}

const Entry = v.strictObject({
  key: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  pattern: v.pipe(v.string(), v.minLength(1)),
  // g and y would make RegExp.test stateful (lastIndex); every flag at most once.
  flags: v.optional(v.pipe(v.string(), v.regex(/^(?!.*(.).*\1)[imsu]*$/, 'flags may only combine i, m, s and u')), 'i'),
  // "command": matched after the list's other patterns, against the normalised command only
  // (not its command-start or payload variants), as Hermes' _check_sudo_stdin_guard is.
  only: v.optional(v.literal('command')),
  // "flags": read the text whose flag words keep their case; "masked": the text with quoted content blanked.
  text: v.optional(v.picklist(['flags', 'masked'])),
  // The Hermes versions whose tables carry this key (PEP 440); absent: the gateway's own entry.
  hermes: v.optional(v.pipe(v.string(), v.check((s) => Boolean(validRange(s)), 'hermes must be a PEP 440 specifier'))),
  note: v.optional(v.string()),
});
const PolicyFile = v.strictObject({
  $comment: v.optional(v.string()),
  hardline: v.pipe(v.array(Entry), v.minLength(1)),
  dangerous: v.pipe(v.array(Entry), v.minLength(1)),
});

const DEFAULT_POLICY_FILE = join(packageRoot(), 'policy', 'dangerous-commands.json');

/** Reads, validates and compiles a pattern file; any problem is an Error naming the file and entry. */
export function loadApprovalPolicy(file = DEFAULT_POLICY_FILE): ApprovalPolicy {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`approval guard: cannot read ${file}: ${(e as Error).message}`);
  }
  const parsed = v.safeParse(PolicyFile, raw);
  if (!parsed.success) {
    throw new Error(`approval guard: ${file} is invalid: ` + parsed.issues.map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`).join('; '));
  }
  const compile = (list: 'hardline' | 'dangerous') =>
    parsed.output[list].map((entry, i): CommandPattern => {
      const where = `${file}: ${list}[${i}] (${JSON.stringify(entry.key)})`;
      let re: RegExp;
      try {
        re = compilePattern(entry.pattern, entry.flags);
      } catch (e) {
        throw new Error(`approval guard: ${where}: invalid regular expression: ${(e as Error).message}`);
      }
      // A pattern that matches the empty command would flag every command.
      if (re.test('')) throw new Error(`approval guard: ${where}: the pattern matches the empty command`);
      if (entry.text === 'flags' && !SCOPED_CASE.test(entry.pattern)) throw new Error(`approval guard: ${where}: text "flags" is for a pattern with a (?-i:…) group`);
      if (entry.text !== 'flags' && SCOPED_CASE.test(entry.pattern)) throw new Error(`approval guard: ${where}: a (?-i:…) group needs text "flags" (the text whose flag words keep their case)`);
      return { key: entry.key, re, commandOnly: entry.only === 'command', text: entry.text ?? 'lower', hermes: entry.hermes };
    });
  return Object.freeze({ hardline: Object.freeze(compile('hardline')), dangerous: Object.freeze(compile('dangerous')) });
}

const SCOPED_CASE = /\(\?-i:/;

/**
 * A pattern as a RegExp. Hermes scopes a case-sensitive group inside a case-insensitive pattern
 * with `(?-i:…)`, which JavaScript accepts only from V8 12.5 (Node 23): such a pattern is compiled
 * without `i`, every letter outside the group spelt in both cases instead (caseInsensitiveOutside).
 */
export function compilePattern(pattern: string, flags: string): RegExp {
  if (!SCOPED_CASE.test(pattern)) return new RegExp(pattern, flags);
  if (!flags.includes('i')) throw new Error('a (?-i:…) group in a pattern without the i flag');
  return new RegExp(caseInsensitiveOutside(pattern), flags.replace('i', ''));
}

const isLetter = (ch: string) => /^[A-Za-z]$/.test(ch);
const otherCase = (ch: string) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase());

/** The length of the escape at `i` (a backslash and what it escapes: `\p{…}`, `\u{…}`, `\uXXXX`, `\xXX`, `\cX`, `\k<…>` or one character). */
function escapeLength(s: string, i: number): number {
  const next = s[i + 1];
  if ((next === 'p' || next === 'P' || next === 'u') && s[i + 2] === '{') return s.indexOf('}', i) - i + 1;
  if (next === 'u') return 6;
  if (next === 'x') return 4;
  if (next === 'c') return 3;
  if (next === 'k' && s[i + 2] === '<') return s.indexOf('>', i) - i + 1;
  return 2;
}

/** The character class starting at `i` (`[`), its end (after `]`), with each ASCII letter's other case added. */
function widenClass(s: string, i: number): [string, number] {
  let j = i + 1;
  if (s[j] === '^') j++;
  const extra: string[] = [];
  let body = s.slice(i, j);
  while (j < s.length && s[j] !== ']') {
    if (s[j] === '\\') {
      const n = escapeLength(s, j);
      body += s.slice(j, j + n);
      j += n;
      continue;
    }
    const ch = s[j]!;
    if (s[j + 1] === '-' && s[j + 2] !== undefined && s[j + 2] !== ']' && s[j + 2] !== '\\') {
      const to = s[j + 2]!;
      body += s.slice(j, j + 3);
      if (isLetter(ch) && isLetter(to) && (ch === ch.toLowerCase()) === (to === to.toLowerCase())) extra.push(`${otherCase(ch)}-${otherCase(to)}`);
      j += 3;
      continue;
    }
    body += ch;
    if (isLetter(ch)) extra.push(otherCase(ch));
    j++;
  }
  if (j >= s.length) throw new Error('unterminated character class');
  return [body + extra.join('') + ']', j + 1];
}

/** The end (after its `)`) of the group whose `(` is at `i`, classes and escapes read through. */
function groupEnd(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; ) {
    const ch = s[j]!;
    if (ch === '\\') j += escapeLength(s, j);
    else if (ch === '[') j = widenClass(s, j)[1];
    else {
      if (ch === '(') depth++;
      else if (ch === ')' && --depth === 0) return j + 1;
      j++;
    }
  }
  throw new Error('unbalanced group');
}

/**
 * `pattern` case-insensitive by spelling: every ASCII letter outside a `(?-i:…)` group (and outside
 * escapes such as `\s`, `\p{L}`) matches both cases (`a` → `[aA]`, a class gains the other case),
 * and each `(?-i:…)` becomes a plain `(?:…)` that matches as written.
 */
export function caseInsensitiveOutside(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; ) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      const n = escapeLength(pattern, i);
      out += pattern.slice(i, i + n);
      i += n;
    } else if (ch === '[') {
      const [cls, end] = widenClass(pattern, i);
      out += cls;
      i = end;
    } else if (pattern.startsWith('(?-i:', i)) {
      const end = groupEnd(pattern, i);
      out += '(?:' + pattern.slice(i + 5, end);
      i = end;
    } else if (pattern.startsWith('(?<', i) && pattern[i + 3] !== '=' && pattern[i + 3] !== '!') {
      const end = pattern.indexOf('>', i);
      out += pattern.slice(i, end + 1);
      i = end + 1;
    } else {
      out += isLetter(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch;
      i++;
    }
  }
  return out;
}

let cached: ApprovalPolicy | undefined;
/** The gateway's policy, loaded once. Callers touch it at startup so a bad file fails early. */
export function approvalPolicy(): ApprovalPolicy {
  cached ??= loadApprovalPolicy();
  return cached;
}
