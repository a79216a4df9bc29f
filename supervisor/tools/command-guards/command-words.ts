import { deobfuscateWord } from './normalise.js';
import { SUDO_ENV_OPTIONS_WITH_ARG, WRAPPER_OPTIONS_WITH_ARG, WRAPPER_POSITIONALS, WRAPPER_QUERY_OPTIONS, WRAPPERS } from './command-wrappers.js';

// Where the shell starts a command and which words stand in command position (Hermes'
// _iter_shell_command_starts and _iter_shell_command_word_spans, tools/approval.py in 0.19,
// tools/approval_detection.py later), read from the command as text. Reading is bounded: each word
// at MAX_WORD characters, each command start at MAX_PREFIX_WORDS words, and the whole command by a
// Budget of tokenising work.

/** Words after which a new command starts (Hermes' _SHELL_COMMAND_TRANSITIONS, after 0.19). */
const TRANSITIONS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!']);
const TRANSITION_FIRST = 'itedwu!';
/** A redirection at the start of a word (Hermes' _SHELL_REDIRECTION_RE); its target is the rest of the word or the next one. */
const REDIRECTION = /[0-9]*(?:>>|<<|<>|>&|<&|>\||[<>])/y;
const ASSIGNMENT = /^[a-z_][a-z0-9_]*=/i;
/** Words longer than this are cut: wrappers and their values are short, and the cut bounds the work. */
const MAX_WORD = 256;
const MAX_PREFIX_WORDS = 12;

/** Tokenising work left for one command, in characters (approval.ts sets it per command). */
export interface Budget {
  left: number;
}

/** Thrown when a command needs more tokenising than its budget: judged like Hermes' parser limit. */
export class OverBudget extends Error {}

export function spend(budget: Budget, chars: number): void {
  budget.left -= chars;
  if (budget.left < 0) throw new OverBudget('command parser budget exceeded');
}

/**
 * Offsets where the shell starts a command, outside single quotes: 0, after ; & && | || newline,
 * after a subshell/group opener `(` `{` and inside `$(` and backticks (also within double quotes),
 * and after a word that hands over to a command of its own (`if`, `then`, `do`, `!`, …: Hermes'
 * _SHELL_COMMAND_TRANSITIONS). With `escapes`, a backslash outside single quotes escapes the next
 * character (the command as written, before normalisation removed its backslashes), and a
 * newline inside quotes is data, not a start.
 */
function commandStarts(c: string, escapes = false): number[] {
  const starts = [0];
  let quote = '';
  let inBacktick = false;
  for (let i = 0; i < c.length; i++) {
    const ch = c[i];
    if (quote === "'") {
      if (ch === "'") quote = '';
      continue;
    }
    if (escapes && ch === '\\') {
      i++;
      continue;
    }
    if (ch === '`') {
      inBacktick = !inBacktick;
      if (inBacktick) starts.push(i + 1);
      continue;
    }
    if (ch === '$' && c[i + 1] === '(') {
      starts.push(i + 2);
      i++;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = '';
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '$' && c[i + 1] === '{') i++; // ${VAR}: not a brace group
    else if (ch === '(' || ch === '{' || ch === ';' || ch === '\n') starts.push(i + 1);
    else if (ch === '&' || ch === '|') {
      if (c[i + 1] === ch) i++;
      starts.push(i + 1);
    }
  }
  // A transition word starts another command after it (`if reboot`, `! reboot`, `do reboot`).
  const out = new Set<number>();
  const pending = starts.reverse();
  while (pending.length > 0) {
    const start = pending.pop()!;
    if (out.has(start) || start >= c.length) continue;
    out.add(start);
    let at = start;
    while (c[at] === ' ' || c[at] === '\t') at++;
    if (!TRANSITION_FIRST.includes(c[at]?.toLowerCase() ?? '')) continue;
    const span = readWord(c, start);
    if (span && TRANSITIONS.has(c.slice(span[0], span[1]).toLowerCase())) pending.push(span[1]);
  }
  return [...out].sort((x, y) => x - y);
}

/**
 * One shell word from `pos` (quotes, $(…), ${…} and backticks kept whole; it ends at whitespace or
 * an unquoted ; & | ( ) < >, as Hermes' _read_shell_word). A word longer than MAX_WORD comes back
 * as null: no wrapper or value is that long, and giving up there keeps the work per command start
 * bounded however the starts nest.
 */
function readWord(c: string, pos: number): [number, number] | null {
  let start = pos;
  while (c[start] === ' ' || c[start] === '\t') start++;
  let i = start;
  let quote = '';
  let depth = 0;
  let inBacktick = false;
  const limit = Math.min(c.length, start + MAX_WORD);
  for (; i < limit; i++) {
    const ch = c[i];
    if (quote) {
      if (ch === quote) quote = '';
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '`') inBacktick = !inBacktick;
    else if (ch === '$' && (c[i + 1] === '(' || c[i + 1] === '{')) {
      depth++;
      i++;
    } else if ((ch === ')' || ch === '}') && depth > 0) depth--;
    else if (depth === 0 && !inBacktick && ' \t\n;&|()<>'.includes(ch!)) return [start, i];
  }
  return i === c.length ? [start, i] : null;
}

interface PrefixWord {
  start: number;
  end: number;
  /** The word as written. */
  raw: string;
  /** As the shell would spell it (deobfuscateWord). */
  word: string;
  /** The command itself, not a wrapper (sudo, env, nice, …) or an assignment in front of it. */
  command: boolean;
}

/** The last component of a path (the word itself without a '/'). */
export const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * The words from the command start `start`: each wrapper and assignment (a wrapper's options, their
 * values and its operands skipped, redirections and their targets skipped), then the command word,
 * which ends the list. A wrapper told only to report (`command -v`, `env -S` whose command is its
 * split string) ends it without a command. With a budget, each word read is spent from it.
 */
function* prefixWords(c: string, start: number, budget?: Budget): Generator<PrefixWord> {
  let pos = start;
  let wrapper = '';
  let options = false;
  let skipArg = false;
  let positionals = 0;
  for (let words = 0; words < MAX_PREFIX_WORDS; words++) {
    let from = pos;
    while (c[from] === ' ' || c[from] === '\t') from++;
    REDIRECTION.lastIndex = from;
    const redirect = REDIRECTION.exec(c);
    if (redirect) {
      // `2>/dev/null cmd`, `> out cmd`: the target is data, the command comes after it.
      const target = readWord(c, from + redirect[0].length);
      if (budget) spend(budget, target ? target[1] - pos : MAX_WORD);
      if (!target) return;
      pos = target[1];
      continue;
    }
    const span = readWord(c, pos);
    if (budget) spend(budget, span ? span[1] - pos : MAX_WORD);
    if (!span || span[0] === span[1]) return;
    const raw = c.slice(span[0], span[1]);
    const word = deobfuscateWord(raw);
    pos = span[1];
    if (skipArg) {
      skipArg = false;
      continue;
    }
    if (wrapper && options && word === '--') {
      options = false;
      continue;
    }
    if (wrapper && options && word.startsWith('-')) {
      const option = word.split('=', 1)[0]!;
      if (wrapper === 'env' && (option === '--split-string' || word.startsWith('-S'))) return;
      const queries = WRAPPER_QUERY_OPTIONS[wrapper];
      if (queries?.has(option) || (wrapper === 'command' && !option.startsWith('--') && /[vV]/.test(option.slice(1)))) return;
      const withArg = WRAPPER_OPTIONS_WITH_ARG[wrapper]?.has(option) || ((wrapper === 'sudo' || wrapper === 'env') && SUDO_ENV_OPTIONS_WITH_ARG.has(option.toLowerCase()));
      skipArg = !word.includes('=') && withArg;
      continue;
    }
    if (positionals > 0) {
      positionals--;
      continue;
    }
    const name = basename(word).toLowerCase();
    if (WRAPPERS.has(name)) {
      wrapper = name;
      options = true;
      positionals = WRAPPER_POSITIONALS[name] ?? 0;
    } else if (ASSIGNMENT.test(word)) {
      // VAR=value in front of the command.
    } else {
      yield { start: span[0], end: span[1], raw, word, command: true };
      return;
    }
    yield { start: span[0], end: span[1], raw, word, command: false };
  }
}

/**
 * The command with a newline before every command start, the wrapper words (and redirections) in
 * front of each command dropped and each command word deobfuscated, so `sudo -u root "rm" -rf /`
 * reads `\nrm -rf /` and every `;`/`&&`/`||`/`|` segment is matched as a command of its own.
 */
export function commandStartVariant(c: string): string {
  let out = '';
  let done = 0;
  for (const start of commandStarts(c)) {
    if (start < done || start >= c.length) continue;
    let command: PrefixWord | undefined;
    for (const word of prefixWords(c, start)) if (word.command) command = word;
    out += c.slice(done, start) + (start === 0 ? '' : '\n');
    if (command) {
      out += command.word;
      done = command.end;
    } else {
      done = start;
    }
  }
  return out + c.slice(done);
}

/**
 * The command as written with `marker` inserted before every command start found on it (quotes and
 * backslash escapes read as the shell reads them): Hermes' "faithful" variant, whose starts survive
 * a `\"` that normalisation would turn into a quote.
 */
export function markRawCommandStarts(c: string, marker: string): string {
  let out = '';
  let done = 0;
  for (const start of commandStarts(c, true)) {
    if (start === 0) continue;
    out += c.slice(done, start) + marker;
    done = start;
  }
  return out + c.slice(done);
}

/** Top-level command segments (split at ; & && | || newline outside quotes), with their offsets. */
function topLevelSegments(c: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let start = 0;
  let quote = '';
  let escaped = false;
  for (let i = 0; i < c.length; i++) {
    const ch = c[i]!;
    if (escaped) escaped = false;
    else if (ch === '\\' && quote !== "'") escaped = true;
    else if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (';&|\n'.includes(ch)) {
      if (start < i) out.push([start, c.slice(start, i)]);
      if ((ch === '&' || ch === '|') && c[i + 1] === ch) i++;
      start = i + 1;
    }
  }
  if (start < c.length) out.push([start, c.slice(start)]);
  return out;
}

/** The command-position words of `segment`, wrappers (sudo, env, VAR=value, …) included, as [start, end, word]. */
function commandWordSpans(segment: string, budget: Budget): Array<[number, number, string]> {
  const out: Array<[number, number, string]> = [];
  for (const start of new Set(commandStarts(segment))) {
    if (start >= segment.length) continue;
    for (const { start: from, end, raw } of prefixWords(segment, start, budget)) out.push([from, end, raw]);
  }
  return out;
}

export interface SegmentWords {
  /** Offset of the segment in the command. */
  at: number;
  segment: string;
  spans: Array<[number, number, string]>;
}

/** Each top-level segment of `c` with its command-position words (read once per command). */
export function segmentWords(c: string, budget: Budget): SegmentWords[] {
  return topLevelSegments(c).map(([at, segment]) => ({ at, segment, spans: commandWordSpans(segment, budget) }));
}
