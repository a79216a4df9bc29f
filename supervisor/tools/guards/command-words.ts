// Where the shell starts a command and which words stand in command position (Hermes'
// _iter_shell_command_starts and _iter_shell_command_word_spans, tools/approval.py), read from
// the command as text. Reading is bounded: each word at MAX_WORD characters, each command start
// at MAX_PREFIX_WORDS words, and the whole command by a Budget of tokenising work.

const WRAPPERS = new Set(['sudo', 'env', 'exec', 'nohup', 'setsid', 'time', 'command', 'builtin']);
/** sudo/env options (lowercased) whose value is the next word. */
const OPTIONS_WITH_ARG = new Set(['-u', '--user', '-g', '--group', '-h', '--host', '-p', '--prompt', '-c', '--close-from', '--chdir', '-d', '-r', '--role', '-t', '--type', '--unset']);
const ASSIGNMENT = /^[a-z_][a-z0-9_]*=/;
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
 * after a subshell/group opener `(` `{` and inside `$(` and backticks (also within double quotes).
 */
function commandStarts(c: string): number[] {
  const starts = [0];
  let quote = '';
  let inBacktick = false;
  for (let i = 0; i < c.length; i++) {
    const ch = c[i];
    if (quote === "'") {
      if (ch === "'") quote = '';
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
  return starts;
}

/**
 * One shell word from `pos` (quotes, $(…), ${…} and backticks kept whole). A word longer than
 * MAX_WORD comes back as null: no wrapper or value is that long, and giving up there keeps the
 * work per command start bounded however the starts nest.
 */
function readWord(c: string, pos: number): [number, number] | null {
  let start = pos;
  while (c[start] === ' ') start++;
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
    else if (depth === 0 && !inBacktick && ' \n;&|()'.includes(ch!)) return [start, i];
  }
  return i === c.length ? [start, i] : null;
}

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

interface PrefixWord {
  start: number;
  end: number;
  /** The word as written. */
  raw: string;
  /** As the shell would spell it (deobfuscateWord). */
  word: string;
  /** The command itself, not a wrapper (sudo, env, …) or an assignment in front of it. */
  command: boolean;
}

/**
 * The words from the command start `start`: each wrapper and assignment (their options and
 * option values skipped), then the command word, which ends the list. With a budget, each word
 * read is spent from it.
 */
function* prefixWords(c: string, start: number, budget?: Budget): Generator<PrefixWord> {
  let pos = start;
  let skipOptions = false;
  let skipArg = false;
  for (let words = 0; words < MAX_PREFIX_WORDS; words++) {
    const span = readWord(c, pos);
    if (budget) spend(budget, span ? span[1] - pos : MAX_WORD);
    if (!span || span[0] === span[1]) return;
    const raw = c.slice(span[0], span[1]);
    const word = deobfuscateWord(raw);
    const lower = word.toLowerCase();
    pos = span[1];
    if (skipArg) {
      skipArg = false;
      continue;
    }
    if (skipOptions && lower.startsWith('-')) {
      skipArg = !lower.includes('=') && OPTIONS_WITH_ARG.has(lower);
      continue;
    }
    const wrapper = WRAPPERS.has(lower);
    if (wrapper) skipOptions = lower === 'sudo' || lower === 'env';
    else if (ASSIGNMENT.test(lower)) skipOptions = false;
    else {
      yield { start: span[0], end: span[1], raw, word, command: true };
      return;
    }
    yield { start: span[0], end: span[1], raw, word, command: false };
  }
}

/**
 * The command with a newline before every command start, the wrapper words in front of each
 * command dropped and each command word deobfuscated, so `sudo -u root "rm" -rf /` reads
 * `\nrm -rf /` and every `;`/`&&`/`||`/`|` segment is matched as a command of its own.
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
