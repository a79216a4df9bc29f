import { stripAnsi } from '../../../shared/output-cap.js';
import type { GatewayConfig } from '../../platform/config.js';
import { PYTHON_WHITESPACE } from '../../../shared/python-strip.js';

// How the guards read a command's text before any pattern sees it: Hermes' normalisation, then
// whitespace and case; Hermes' parser limits; quoted text read as data; and one command word as
// the shell would spell it (deobfuscateWord, at the end).

/** The configured homes whose absolute paths read as `~/.hermes/` and `~/` (the patterns' spelling). */
export type CommandHomes = Pick<GatewayConfig, 'hermesHome' | 'userHome'>;

// ---------------------------------------------------------------------------------------------
// Normalisation (Hermes' _normalize_command_for_detection, then whitespace and case)
// ---------------------------------------------------------------------------------------------

/** Hermes' _normalize_command_for_detection: case and whitespace kept (the structural checks read them). */
export function hermesNormalise(command: string, homes: CommandHomes): string {
  let c = stripAnsi(command).replace(/\0/g, '').normalize('NFKC');
  // A line continuation joins its two lines: `rm -rf \<newline>/` runs `rm -rf /`.
  c = c.replace(/\\\r?\n/g, '');
  c = foldHomes(c, homes);
  // r\m → rm, r''m → rm, rm${IFS}-rf → rm -rf: spellings the shell reads as the plain word.
  c = c.replace(/\\([^\n])/g, '$1');
  c = c.replace(/''|""/g, '');
  return c.replace(/\$\{IFS\b[^}]*\}|\$IFS\b/g, ' ');
}

/** Whitespace as Python's patterns read `\s` (also \x1c-\x1f and \x85), newlines apart: each run becomes one space. */
const SPACE_RUN = new RegExp(`[${PYTHON_WHITESPACE.replace('\n', '')}]+`, 'g');
const EDGE = new RegExp(`^[${PYTHON_WHITESPACE}]+|[${PYTHON_WHITESPACE}]+$`, 'g');

/**
 * Then whitespace, for the patterns: a run of whitespace (as Python counts it, so `rm\x1f-rf`
 * reads as `rm -rf`) becomes one space; newlines (command separators) are kept, one per run. An
 * invisible character JavaScript also counts as whitespace (U+FEFF) is kept: a pattern looks for it.
 * Case is kept (each pattern reads the lowercased text or the one whose flags keep their case).
 */
export function finishNormalising(c: string): string {
  return c.replace(SPACE_RUN, ' ').replace(/ ?\n[ \n]*/g, '\n').replace(EDGE, '');
}

/** Hermes' _lower_preserving_flags: every word lowercased except those starting with `-`. */
export function lowerPreservingFlags(c: string): string {
  return c
    .split(/(\s+)/)
    .map((t) => (t.startsWith('-') ? t : t.toLowerCase()))
    .join('');
}

/**
 * Absolute Hermes-home and user-home prefixes read as ~/.hermes/ and ~/ (the patterns' spelling).
 * Both are the gateway's configured ones (config.hermesHome, config.userHome), so a HERMES_HOME
 * outside ~/.hermes is guarded like ~/.hermes.
 */
function foldHomes(c: string, homes: CommandHomes): string {
  c = foldPrefix(c, [homes.hermesHome], '~/.hermes');
  return foldPrefix(c, [homes.userHome], '~');
}

function foldPrefix(c: string, paths: string[], replacement: string): string {
  const candidates = [...new Set(paths.map((p) => p.replace(/\/+$/, '')))].sort((a, b) => b.length - a.length);
  for (const path of candidates) {
    // A home of fewer than two components (`/`, `/home`) would rewrite unrelated paths.
    if (path.split('/').filter(Boolean).length < 2 || !c.includes(path + '/')) continue;
    c = c.split(path + '/').join(replacement + '/');
  }
  return c;
}

/** Hermes' parser limits: longer input, or this many separators, is refused unread. */
const MAX_COMMAND_CHARS = 128_000;
const MAX_SEPARATOR_FREE_CHARS = 4_096;
const MAX_SEGMENTS = 25_000;

/** Whether Hermes' parser refuses `command` unread (too long, or too many separators). */
export function parserLimitExceeded(command: string): boolean {
  if (command.length > MAX_COMMAND_CHARS) return true;
  if (command.length > MAX_SEPARATOR_FREE_CHARS && !/[;&|\n]/.test(command)) return true;
  let separators = 0;
  for (const ch of command) if (ch === ';' || ch === '&' || ch === '|' || ch === '\n') if (++separators >= MAX_SEGMENTS) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Quoted text: read as data
// ---------------------------------------------------------------------------------------------

/** The command with every newline inside quotes read as a space (Hermes' _mask_quoted_newlines: a quoted newline is data). */
export function maskQuotedNewlines(c: string): string {
  if (!c.includes('\n')) return c;
  let out = '';
  let quote = '';
  for (let i = 0; i < c.length; i++) {
    const ch = c[i]!;
    if (quote !== "'" && ch === '\\' && i + 1 < c.length) {
      out += ch + c[++i];
      continue;
    }
    if (quote) {
      if (ch === quote) quote = '';
      out += quote && ch === '\n' ? ' ' : ch;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    out += ch;
  }
  return out;
}

/**
 * The command with the text inside quotes blanked, the quotes kept, and a `$(…)` or backtick span
 * inside double quotes kept (the shell runs it): Hermes' _mask_quoted_prose, for the patterns that
 * read globs and braces, which are data inside quotes.
 */
export function maskQuotedProse(c: string): string {
  let out = '';
  let quote = '';
  for (let i = 0; i < c.length; i++) {
    const ch = c[i]!;
    if (!quote) {
      if (ch === '\\' && i + 1 < c.length) {
        out += ch + c[++i];
        continue;
      }
      if (ch === "'" || ch === '"') quote = ch;
      out += ch;
      continue;
    }
    if (ch === quote) {
      quote = '';
      out += ch;
      continue;
    }
    if (quote === '"' && (ch === '`' || (ch === '$' && c[i + 1] === '('))) {
      const end = ch === '`' ? c.indexOf('`', i + 1) : substitutionEnd(c, i);
      if (end > i) {
        out += c.slice(i, end + 1);
        i = end;
        continue;
      }
    }
    if (quote === '"' && ch === '\\' && i + 1 < c.length) {
      out += '  ';
      i++;
      continue;
    }
    out += ' ';
  }
  return out;
}

/** The offset of the `)` closing the `$(` at `i` (quotes inside read through), or -1. */
function substitutionEnd(c: string, i: number): number {
  let depth = 0;
  let quote = '';
  for (let j = i; j < c.length; j++) {
    const ch = c[j];
    if (quote) {
      if (ch === quote) quote = '';
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return j;
  }
  return -1;
}

/**
 * The end of the simple command that starts at `from` (Hermes' _shell_command_segment): the first
 * unquoted ; & | newline, `)` or backtick, with `$(…)`, `${…}` and backtick spans read whole.
 */
export function simpleCommandEnd(c: string, from: number): number {
  let quote = '';
  for (let i = from; i < c.length; i++) {
    const ch = c[i]!;
    if (quote === "'") {
      if (ch === "'") quote = '';
      continue;
    }
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '$' && c[i + 1] === '(') {
      const end = substitutionEnd(c, i);
      if (end > 0) {
        i = end;
        continue;
      }
    }
    if (ch === '$' && c[i + 1] === '{') {
      const end = c.indexOf('}', i + 2);
      if (end > 0) {
        i = end;
        continue;
      }
    }
    if (quote === '"') {
      if (ch === '"') quote = '';
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (';&|\n)`'.includes(ch)) return i;
  }
  return c.length;
}

/** `s` with each run of unquoted whitespace as one space (quoted text kept as written). */
export function collapseUnquotedWhitespace(s: string): string {
  let out = '';
  let quote = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quote) {
      if (ch === quote) quote = '';
      out += ch;
    } else if (/\s/.test(ch)) {
      if (!out.endsWith(' ')) out += ' ';
    } else {
      if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '\\' && i + 1 < s.length) {
        out += ch + s[++i];
        continue;
      }
      out += ch;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// A command word as the shell would spell it
// ---------------------------------------------------------------------------------------------

// A command word as the shell would spell it: the literal substitutions and quotes an approval
// guard must see through (`$(echo rm)`, `${v:-rm}`, `"r"m`) resolved.

const SIMPLE_LITERAL = String.raw`['"]?([a-z0-9_./:@%+=,-]+)['"]?`;
const LITERAL_SUBSTITUTION = new RegExp(String.raw`\$\(\s*(?:echo(?:\s+-[ne]+)*|printf(?:\s+['"]?%s['"]?)?)\s+${SIMPLE_LITERAL}\s*\)|\x60\s*(?:echo(?:\s+-[ne]+)*|printf(?:\s+['"]?%s['"]?)?)\s+${SIMPLE_LITERAL}\s*\x60`, 'gi');

/** How the shell would spell a command word: literal $(echo x) / ${v:-x} / ${v/a/x} and quotes resolved. */
export function deobfuscateWord(word: string): string {
  // Only quotes and $(…) / ${…} / backticks change a word here.
  if (!/[$'"`]/.test(word)) return word;
  let w = word;
  for (let round = 0; round < 2; round++) {
    const before = w;
    w = w
      .replace(LITERAL_SUBSTITUTION, (_m, a?: string, b?: string) => a ?? b ?? '')
      .replace(/\$\{[^}/\s]+\/[^}/]*\/([^}]*)\}/g, '$1')
      .replace(/\$\{[^}:\s]+:-([^}]*)\}/g, '$1')
      .replace(/['"]/g, '');
    if (w === before) break;
  }
  return w;
}
