import { ErrorCode, GatewayError } from '../../../../shared/errors.js';

// search_files' regular expressions: the pattern is ripgrep's dialect (Rust's regex crate), which
// Hermes hands to rg; here it becomes a JS RegExp that matches what rg matches, or is refused
// with rg's own words where rg refuses it.

/** Hermes `_pattern_has_regex_newline`: a literal newline or a `\n` escape with an odd backslash run. */
export function patternHasRegexNewline(pattern: string): boolean {
  return pattern.includes('\n') || /(?<!\\)(?:\\\\)*\\n/.test(pattern);
}

/** Hermes' warning when a `\n` regex found nothing: its search is line-oriented (`_maybe_warn_line_oriented_newline_pattern`). */
export const LINE_ORIENTED_WARNING =
  '0 results found. Note: search_files content search is line-oriented and does not run ripgrep with -U/--multiline, ' +
  'so `\\n` in the regex does not match line breaks. Use context=N to inspect neighboring lines, or escape as `\\\\n` ' +
  'when searching for a literal backslash+n.';

// rg's POSIX bracket classes (`[[:digit:]]`), as the ASCII ranges they stand for.
const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/**
 * What rg's regex dialect (Rust's regex crate) refuses and a JS RegExp would accept: look-around and
 * backreferences. rg's own words for each, so the error reads as Hermes' `Search failed: ...`.
 */
function unsupportedByRg(source: string): string | null {
  // Outside character classes only; an escaped `(` or `\` is literal.
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return 'backreferences are not supported';
      if (!inClass && next === 'k' && source[i + 2] === '<') return 'backreferences are not supported';
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      if (source[i + 1] === ']' || (source[i + 1] === '^' && source[i + 2] === ']')) i += source[i + 1] === '^' ? 2 : 1;
      continue;
    }
    if (ch === '(' && source[i + 1] === '?' && (source[i + 2] === '=' || source[i + 2] === '!' || (source[i + 2] === '<' && (source[i + 3] === '=' || source[i + 3] === '!')))) {
      return 'look-around, including look-ahead and look-behind, is not supported';
    }
  }
  return null;
}

// rg's Perl classes are Unicode-aware (`\w` matches `é`, `\d` matches `٣`); a JS RegExp's are
// ASCII even in `u` mode, so they are spelled out with Unicode properties.
const WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const OUTSIDE_CLASS: Record<string, string> = {
  w: `[${WORD}]`,
  W: `[^${WORD}]`,
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  b: `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`,
  B: `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`,
};
const INSIDE_CLASS: Record<string, string> = { w: WORD, d: '\\p{Nd}', D: '\\P{Nd}' };

/** `c` and its other case (one character each), or null when it has none. */
function caseFold(c: string): string | null {
  const lower = c.toLowerCase();
  const upper = c.toUpperCase();
  if (lower === upper || [...lower].length !== 1 || [...upper].length !== 1) return null;
  return lower === c ? upper : lower;
}

/**
 * rg's syntax as JS spells it: POSIX classes (`[[:digit:]]`), `\p{Greek}` (a script) as
 * `\p{Script=Greek}`, Python-style `(?P<name>`, and (`unicode`: for a `u`-mode RegExp) the
 * Unicode-aware `\w \W \d \D \b \B`. Inline case flags that JS (Node 20) cannot scope — `(?i:...)`,
 * or `(?i)` / `(?-i)` after the start — are applied by spelling each letter they cover in both
 * cases (`[hH]`, and `[a-cA-C]` for a letter range in a class).
 */
function jsSpelling(source: string, unicode: boolean): string {
  const s: Spelling = { out: '', inClass: false, scopes: [false], unicode };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') i = spellEscape(s, source, i);
    else if (s.inClass) i = spellInClass(s, source, i);
    else if (ch === '[') i = openClass(s, source, i);
    else if (ch === '(') i = openGroup(s, source, i);
    else if (ch === ')') {
      if (s.scopes.length > 1) s.scopes.pop();
      s.out += ch;
    } else i = spellLiteral(s, source, i);
  }
  return s.out;
}

/** jsSpelling's state; each step below appends to `out` and returns the index of the last character it consumed. */
interface Spelling {
  out: string;
  inClass: boolean;
  /** Case-insensitivity of each open group (the last is the current one). */
  scopes: boolean[];
  unicode: boolean;
}

const caseInsensitive = (s: Spelling): boolean => s.scopes[s.scopes.length - 1]!;

/** A backslash escape at `i`: a `\p{…}` property, or a class shorthand spelled for `u` mode. */
function spellEscape(s: Spelling, source: string, i: number): number {
  const next = source[i + 1] ?? '';
  const prop = /^([pP])\{([A-Za-z_]+)\}/.exec(source.slice(i + 1));
  if (prop) {
    s.out += s.unicode && !isUnicodeProperty(prop[2]!) ? `\\${prop[1]}{Script=${prop[2]}}` : `\\${prop[0]}`;
    return i + prop[0].length;
  }
  const spelled = s.unicode ? (s.inClass ? INSIDE_CLASS : OUTSIDE_CLASS)[next] : undefined;
  s.out += spelled ?? '\\' + next;
  return i + 1;
}

/** A character inside a class: a POSIX class, the closing `]`, or (case-insensitive) a letter or range in both cases. */
function spellInClass(s: Spelling, source: string, i: number): number {
  const ch = source[i]!;
  const posix = /^\[:([a-z]+):\]/.exec(source.slice(i));
  if (posix && POSIX_CLASSES[posix[1]!] !== undefined) {
    s.out += POSIX_CLASSES[posix[1]!];
    return i + posix[0].length - 1;
  }
  if (ch === ']') s.inClass = false;
  else if (caseInsensitive(s)) {
    const range = /^(.)-([^\]\\])/u.exec(source.slice(i));
    if (range) {
      const [from, to] = [caseFold(range[1]!), caseFold(range[2]!)];
      s.out += range[0] + (from !== null && to !== null ? `${from}-${to}` : '');
      return i + range[0].length - 1;
    }
    s.out += ch + (caseFold(ch) ?? '');
    return i;
  }
  s.out += ch;
  return i;
}

/** A `[` opening a class. */
function openClass(s: Spelling, source: string, i: number): number {
  s.inClass = true;
  s.out += '[';
  // A `]` (or `^]`) first in a class is a literal `]` to rg; JS reads `[]` as an empty class.
  const lead = source[i + 1] === '^' ? (source[i + 2] === ']' ? '^]' : '^') : source[i + 1] === ']' ? ']' : '';
  s.out += lead.replace(']', '\\]');
  return i + lead.length;
}

/** A `(` opening a group: inline case flags (scoped here), a Python-style named group, or a plain group. */
function openGroup(s: Spelling, source: string, i: number): number {
  const flagged = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(source.slice(i));
  if (flagged && (flagged[1] !== '' || flagged[2] !== undefined)) {
    const on = flagged[1]!.includes('i') ? true : flagged[2]?.includes('i') ? false : caseInsensitive(s);
    if (flagged[3] === ')') s.scopes[s.scopes.length - 1] = on; // the rest of the enclosing group
    else {
      s.scopes.push(on);
      s.out += '(?:';
    }
    return i + flagged[0].length - 1;
  }
  s.scopes.push(caseInsensitive(s));
  const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(source.slice(i));
  if (named) {
    s.out += `(?<${named[1]}>`; // the name as it is, never case-spelled
    return i + named[0].length - 1;
  }
  s.out += '(';
  return i;
}

/** Any other character (a whole code point): in both cases where case-insensitive. */
function spellLiteral(s: Spelling, source: string, i: number): number {
  const whole = String.fromCodePoint(source.codePointAt(i)!);
  const other = caseInsensitive(s) ? caseFold(whole) : null;
  s.out += other !== null ? `[${whole}${other}]` : whole;
  return whole.length === 2 ? i + 1 : i;
}

function isUnicodeProperty(name: string): boolean {
  try {
    new RegExp(`\\p{${name}}`, 'u');
    return true;
  } catch {
    return false;
  }
}

/** rg's regex as a JS RegExp (`u` mode when the pattern allows it). Throws INVALID_ARGUMENTS. */
export function compileSearchRegex(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  // A leading flag group becomes the RegExp's flags, unless a later `(?-i)` turns case back on
  // (jsSpelling then scopes it).
  const inline = /\(\?[a-zA-Z]*-[a-zA-Z]*i/.test(source) ? null : /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of new Set(inline[1]!)) if (!flags.includes(f)) flags += f;
  }
  const refused = unsupportedByRg(source);
  if (refused) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Search failed: regex parse error: ${refused}`);
  try {
    return new RegExp(jsSpelling(source, true), flags + 'u');
  } catch {
    try {
      return new RegExp(jsSpelling(source, false), flags);
    } catch (e) {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid regex pattern ${JSON.stringify(pattern)}: ${(e as Error).message}`);
    }
  }
}
