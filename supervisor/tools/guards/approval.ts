import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { stripAnsi } from '../../../shared/output-cap.js';
import { packageRoot } from '../../../shared/package-root.js';
import type { GatewayConfig } from '../../platform/config.js';

// The gateway's approval guard: Hermes' dangerous-command detection (tools/approval.py), with the
// patterns as data in policy/dangerous-commands.json and what Hermes reads structurally (its
// parser limits, quoted grep -P patterns, options that make a program run code: bash -c,
// python -c, rg --pre, …) here. A command is normalised like Hermes does it and matched as text,
// so it is a guard against accidents and prompt-injected one-liners, not a sandbox: a script
// file, an interpreter or an alias can always say the same thing differently.
//
//   - hardline: never runs through the gateway, whoever asks;
//   - dangerous: Hermes would ask the user. Inside execute_code the whole script was the one
//     approval (the host's consent covers that one script, never a session-wide grant), so the
//     caller denies these there.

type CommandVerdict = { verdict: 'allow' } | { verdict: 'hardline' | 'dangerous'; key: string };

interface CommandPattern {
  key: string;
  re: RegExp;
  /** Matched against the normalised command only, after the list's other patterns. */
  commandOnly: boolean;
}

/** The configured homes whose absolute paths read as `~/.hermes/` and `~/` (the patterns' spelling). */
export type CommandHomes = Pick<GatewayConfig, 'hermesHome' | 'userHome'>;

interface ApprovalPolicy {
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
        re = new RegExp(entry.pattern, entry.flags);
      } catch (e) {
        throw new Error(`approval guard: ${where}: invalid regular expression: ${(e as Error).message}`);
      }
      // A pattern that matches the empty command would flag every command.
      if (re.test('')) throw new Error(`approval guard: ${where}: the pattern matches the empty command`);
      return { key: entry.key, re, commandOnly: entry.only === 'command' };
    });
  return Object.freeze({ hardline: Object.freeze(compile('hardline')), dangerous: Object.freeze(compile('dangerous')) });
}

let cached: ApprovalPolicy | undefined;
/** The gateway's policy, loaded once. Callers touch it at startup so a bad file fails early. */
export function approvalPolicy(): ApprovalPolicy {
  cached ??= loadApprovalPolicy();
  return cached;
}

/** Hermes' descriptions for a command its parser refuses to judge (always blocked). */
export const PARSER_LIMIT_KEY = 'command parser limit exceeded';
export const MALFORMED_EXEC_KEY = 'command parser limit or malformed executable payload';

/**
 * Hardline before dangerous, each in file order over the command variants (Hermes' order):
 * the command (quoted `grep -P` patterns blanked), each program an option of it runs (`bash -c
 * PAYLOAD`, `rg --pre PROGRAM`, …, recursively) and each of those with its command starts marked.
 * A dangerous verdict with no pattern match still comes from how the command runs a program
 * (`python -c`, `node <<EOF`, `sort --compress-program`: Hermes' _execution_flag_findings).
 * Quoted text is matched like any other text (Hermes does the same): `echo "rm -rf /"` is
 * dangerous; hardline rm/shutdown forms need a command position, so it is not hardline.
 */
export function checkCommand(command: string, homes: CommandHomes, policy: ApprovalPolicy = approvalPolicy()): CommandVerdict {
  if (parserLimitExceeded(command)) return { verdict: 'hardline', key: PARSER_LIMIT_KEY };
  try {
    return judge(hermesNormalise(command, homes), policy);
  } catch (e) {
    if (e instanceof OverBudget) return { verdict: 'hardline', key: PARSER_LIMIT_KEY };
    throw e;
  }
}

function judge(base: string, policy: ApprovalPolicy): CommandVerdict {
  const budget: Budget = { left: PARSE_BUDGET_FACTOR * base.length + PARSE_BUDGET_BASE };
  const words = segmentWords(base, budget);
  const grep = grepSafeVariant(base, words, budget);
  if (grep === 'malformed') return { verdict: 'hardline', key: MALFORMED_EXEC_KEY };
  const normalised = finishNormalising(grep);
  if (!normalised) return { verdict: 'allow' };
  const variants = [normalised];
  const add = (text: string) => {
    if (text && !variants.includes(text)) variants.push(text);
  };
  const findings = executionFindings(words, budget);
  for (const payload of programPayloads(base, findings, budget)) {
    const text = finishNormalising(payload);
    add(text);
    add(commandStartVariant(text));
  }
  add(commandStartVariant(normalised));
  const whole = finishNormalising(base);
  for (const verdict of ['hardline', 'dangerous'] as const) {
    const patterns = policy[verdict];
    for (const text of variants) {
      for (const { key, re, commandOnly } of patterns) if (!commandOnly && re.test(text)) return { verdict, key };
    }
    for (const { key, re, commandOnly } of patterns) if (commandOnly && re.test(whole)) return { verdict, key };
  }
  if (findings.length > 0) return { verdict: 'dangerous', key: findings[0]!.key };
  return { verdict: 'allow' };
}

// ---------------------------------------------------------------------------------------------
// Normalisation (Hermes' _normalize_command_for_detection, then whitespace and case)
// ---------------------------------------------------------------------------------------------

/** The text every pattern sees. Exported for tests. */
export function normaliseCommand(command: string, homes: CommandHomes): string {
  return finishNormalising(hermesNormalise(command, homes));
}

/** Hermes' _normalize_command_for_detection: case and whitespace kept (the structural checks read them). */
function hermesNormalise(command: string, homes: CommandHomes): string {
  let c = stripAnsi(command).replace(/\0/g, '').normalize('NFKC');
  // A line continuation joins its two lines: `rm -rf \<newline>/` runs `rm -rf /`.
  c = c.replace(/\\\r?\n/g, '');
  c = foldHomes(c, homes);
  // r\m → rm, r''m → rm, rm${IFS}-rf → rm -rf: spellings the shell reads as the plain word.
  c = c.replace(/\\([^\n])/g, '$1');
  c = c.replace(/''|""/g, '');
  return c.replace(/\$\{IFS\b[^}]*\}|\$IFS\b/g, ' ');
}

/** Then whitespace and case, for the patterns. */
function finishNormalising(c: string): string {
  // Whitespace runs become one space; newlines (command separators) are kept, one per run.
  c = c.replace(/[^\S\n]+/g, ' ').replace(/ ?\n[ \n]*/g, '\n').trim();
  return c.toLowerCase();
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

// ---------------------------------------------------------------------------------------------
// Command starts (Hermes' _iter_shell_command_starts and _iter_shell_command_word_spans)
// ---------------------------------------------------------------------------------------------

const WRAPPERS = new Set(['sudo', 'env', 'exec', 'nohup', 'setsid', 'time', 'command', 'builtin']);
/** sudo/env options (lowercased) whose value is the next word. */
const OPTIONS_WITH_ARG = new Set(['-u', '--user', '-g', '--group', '-h', '--host', '-p', '--prompt', '-c', '--close-from', '--chdir', '-d', '-r', '--role', '-t', '--type', '--unset']);
const ASSIGNMENT = /^[a-z_][a-z0-9_]*=/;
/** Words longer than this are cut: wrappers and their values are short, and the cut bounds the work. */
const MAX_WORD = 256;
const MAX_PREFIX_WORDS = 12;

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
function deobfuscateWord(word: string): string {
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

/**
 * The command with a newline before every command start, the wrapper words in front of each
 * command dropped and each command word deobfuscated, so `sudo -u root "rm" -rf /` reads
 * `\nrm -rf /` and every `;`/`&&`/`||`/`|` segment is matched as a command of its own.
 */
function commandStartVariant(c: string): string {
  let out = '';
  let done = 0;
  for (const start of commandStarts(c)) {
    if (start < done || start >= c.length) continue;
    let pos = start;
    let words = 0;
    let skipOptions = false;
    let skipArg = false;
    let command: [number, number, string] | undefined;
    while (words < MAX_PREFIX_WORDS) {
      const span = readWord(c, pos);
      if (!span || span[0] === span[1]) break;
      const [ws, we] = span;
      const word = deobfuscateWord(c.slice(ws, we));
      pos = we;
      words++;
      if (skipArg) {
        skipArg = false;
        continue;
      }
      if (skipOptions && word.startsWith('-')) {
        skipArg = !word.includes('=') && OPTIONS_WITH_ARG.has(word);
        continue;
      }
      if (WRAPPERS.has(word)) {
        skipOptions = word === 'sudo' || word === 'env';
        continue;
      }
      if (ASSIGNMENT.test(word)) {
        skipOptions = false;
        continue;
      }
      command = [ws, we, word];
      break;
    }
    out += c.slice(done, start) + (start === 0 ? '' : '\n');
    if (command) {
      out += command[2];
      done = command[1];
    } else {
      done = start;
    }
  }
  return out + c.slice(done);
}

// ---------------------------------------------------------------------------------------------
// How a command runs programs (Hermes' _execution_flag_findings, _quoted_grep_pattern_spans and
// their parser limits)
// ---------------------------------------------------------------------------------------------

/** Hermes' parser limits: longer input, or this many separators, is refused unread. */
const MAX_COMMAND_CHARS = 128_000;
const MAX_SEPARATOR_FREE_CHARS = 4_096;
const MAX_SEGMENTS = 25_000;
/** Tokenising work allowed per command (characters), so nested starts cannot make it quadratic. */
const PARSE_BUDGET_FACTOR = 64;
const PARSE_BUDGET_BASE = 1_048_576;

interface Budget {
  left: number;
}

/** Thrown when a command needs more tokenising than its budget: judged like Hermes' parser limit. */
class OverBudget extends Error {}

function spend(budget: Budget, chars: number): void {
  budget.left -= chars;
  if (budget.left < 0) throw new OverBudget('command parser budget exceeded');
}

function parserLimitExceeded(command: string): boolean {
  if (command.length > MAX_COMMAND_CHARS) return true;
  if (command.length > MAX_SEPARATOR_FREE_CHARS && !/[;&|\n]/.test(command)) return true;
  let separators = 0;
  for (const ch of command) if (ch === ';' || ch === '&' || ch === '|' || ch === '\n') if (++separators >= MAX_SEGMENTS) return true;
  return false;
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
    let pos = start;
    let skipOptions = false;
    let skipArg = false;
    for (let words = 0; words < MAX_PREFIX_WORDS; words++) {
      const span = readWord(segment, pos);
      spend(budget, span ? span[1] - pos : MAX_WORD);
      if (!span || span[0] === span[1]) break;
      const raw = segment.slice(span[0], span[1]);
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
      out.push([span[0], span[1], raw]);
      if (WRAPPERS.has(lower)) {
        skipOptions = lower === 'sudo' || lower === 'env';
        continue;
      }
      if (ASSIGNMENT.test(lower)) {
        skipOptions = false;
        continue;
      }
      break;
    }
  }
  return out;
}

const isSpace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

/** The words of `s` as Python's shlex (posix, whitespace_split, `<>` runs their own words, no comments) gives them; null on unbalanced quoting. */
function shellTokens(s: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isSpace(s[i]!)) i++;
    if (i >= s.length) return out;
    if (s[i] === '<' || s[i] === '>') {
      let j = i;
      while (j < s.length && (s[j] === '<' || s[j] === '>')) j++;
      out.push(s.slice(i, j));
      i = j;
      continue;
    }
    let token = '';
    while (i < s.length && !isSpace(s[i]!) && s[i] !== '<' && s[i] !== '>') {
      const ch = s[i]!;
      if (ch === "'") {
        const end = s.indexOf("'", i + 1);
        if (end < 0) return null;
        token += s.slice(i + 1, end);
        i = end + 1;
      } else if (ch === '"') {
        for (i++; ; ) {
          if (i >= s.length) return null;
          const q = s[i]!;
          if (q === '"') {
            i++;
            break;
          }
          if (q === '\\' && (s[i + 1] === '"' || s[i + 1] === '\\')) {
            token += s[i + 1];
            i += 2;
          } else {
            token += q;
            i++;
          }
        }
      } else if (ch === '\\') {
        if (i + 1 >= s.length) return null;
        token += s[i + 1];
        i += 2;
      } else {
        token += ch;
        i++;
      }
    }
    out.push(token);
  }
}

interface SpanToken {
  value: string;
  start: number;
  end: number;
  /** Wholly single-quoted (or NAME='…'): inert data to the shell. */
  inert: boolean;
}

/** Hermes' _shell_tokens_with_spans: words with their source spans from `start`; null on unbalanced quoting. */
function tokensWithSpans(segment: string, start: number): SpanToken[] | null {
  const out: SpanToken[] = [];
  let i = start;
  while (i < segment.length) {
    while (i < segment.length && isSpace(segment[i]!)) i++;
    if (i >= segment.length) break;
    const from = i;
    let value = '';
    let quote = '';
    while (i < segment.length && (quote || !isSpace(segment[i]!))) {
      const ch = segment[i]!;
      if (quote) {
        if (ch === quote) {
          quote = '';
          i++;
        } else if (ch === '\\' && quote === '"' && i + 1 < segment.length) {
          value += segment[i + 1];
          i += 2;
        } else {
          value += ch;
          i++;
        }
      } else if (ch === "'" || ch === '"') {
        quote = ch;
        i++;
      } else if (ch === '\\') {
        if (i + 1 >= segment.length) return null;
        value += segment[i + 1];
        i += 2;
      } else {
        value += ch;
        i++;
      }
    }
    if (quote) return null;
    const raw = segment.slice(from, i);
    out.push({ value, start: from, end: i, inert: (raw.startsWith("'") && raw.endsWith("'") && raw.length > 1) || (raw.includes("='") && raw.endsWith("'")) });
  }
  return out;
}

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

type Family = 'python' | 'node' | 'perl' | 'ruby' | 'php' | 'powershell';

function interpreterFamily(executable: string): Family | null {
  const name = basename(executable).toLowerCase();
  if (/^(?:py(?:\.exe)?|python[23]?(?:\.\d+)*(?:\.exe)?)$/.test(name)) return 'python';
  if (/^node(?:js)?(?:\.exe)?$/.test(name)) return 'node';
  if (/^perl[0-9]*(?:\.\d+)*(?:\.exe)?$/.test(name)) return 'perl';
  if (/^ruby[0-9.]*(?:\.exe)?$/.test(name)) return 'ruby';
  if (/^php(?:\.exe)?$/.test(name)) return 'php';
  if (/^(?:powershell|pwsh)(?:\.exe)?$/.test(name)) return 'powershell';
  return null;
}

const INTERPRETER_EXEC_FLAGS: Record<Family, ReadonlySet<string>> = {
  python: new Set(['-c']),
  node: new Set(['-e', '--eval', '-p', '--print']),
  perl: new Set(['-e', '--eval']),
  ruby: new Set(['-e']),
  php: new Set(['-r']),
  powershell: new Set(['-command', '-c', '-file', '-f']),
};
const INTERPRETER_WITH_ARG: Record<Family, ReadonlySet<string>> = {
  python: new Set(['-W', '-X', '--check-hash-based-pycs']),
  node: new Set(['-C', '--conditions', '--cpu-prof-dir', '--diagnostic-dir', '--icu-data-dir', '--import', '--loader', '--openssl-config', '--require', '--title']),
  perl: new Set(['-0', '-F', '-I', '-M', '-m', '-x']),
  ruby: new Set(['-C', '-E', '-F', '-I', '-K', '-r']),
  php: new Set(['-c', '-d', '-z']),
  powershell: new Set(['-configurationname', '-custompipename', '-executionpolicy', '-inputformat', '-outputformat', '-settingsfile', '-version', '-windowstyle', '-workingdirectory']),
};

function splitOption(token: string): [string, string | null] {
  const eq = token.indexOf('=');
  return eq < 0 ? [token, null] : [token.slice(0, eq), token.slice(eq + 1)];
}

/** Hermes' _interpreter_exec_flag: the option of `args` that makes the interpreter run code given inline. */
function interpreterExecFlag(family: Family, args: string[]): string | null {
  const flags = INTERPRETER_EXEC_FLAGS[family];
  const withArg = INTERPRETER_WITH_ARG[family];
  let skipValue = false;
  for (const token of args) {
    if (skipValue) {
      skipValue = false;
      continue;
    }
    if (token === '--') break;
    if (family !== 'powershell' && !token.startsWith('-')) break;
    const [option, attached] = splitOption(token);
    const comparable = family === 'powershell' ? option.toLowerCase() : option;
    if (flags.has(comparable)) return comparable;
    const attachedValue = [...withArg].some((short) => short.startsWith('-') && !short.startsWith('--') && option.startsWith(short) && option.length > short.length);
    if (family !== 'powershell' && !option.startsWith('--') && option.length > 2 && !attachedValue) {
      for (const ch of option.slice(1)) if (flags.has(`-${ch}`)) return `-${ch}`;
    }
    if (withArg.has(comparable) && attached === null) skipValue = true;
  }
  return null;
}

const BASH_OPTIONS_WITH_ARG = new Set(['-O', '+O', '-o', '+o', '--init-file', '--rcfile']);
const BASH_SHORT_OPTION_LETTERS = new Set('ilrsDcabefhkmnptuvxBCEHPTOo');

/** Hermes' _bash_exec_payload: whether the shell's options include -c, and the command string it runs. */
function bashExecPayload(args: string[]): [boolean, string | null] {
  let index = 0;
  while (index < args.length) {
    const token = args[index]!;
    if (token === '--' || !(token.startsWith('-') || token.startsWith('+'))) break;
    if (BASH_OPTIONS_WITH_ARG.has(token)) {
      index += 2;
      continue;
    }
    if (token.startsWith('--')) {
      index++;
      continue;
    }
    const chars = [...token.slice(1)];
    if (!chars.every((ch) => BASH_SHORT_OPTION_LETTERS.has(ch))) {
      index++;
      continue;
    }
    const consumed = chars.includes('O') || chars.includes('o') ? 1 : 0;
    if (!chars.includes('c')) {
      index += 1 + consumed;
      continue;
    }
    const at = index + 1 + consumed;
    return [true, at < args.length ? args[at]! : null];
  }
  return [false, null];
}

type ReadTool = 'sort' | 'rg' | 'ag' | 'man';
const READ_TOOL_EXEC_FLAGS: Record<ReadTool, ReadonlySet<string>> = {
  sort: new Set(['--compress-program']),
  rg: new Set(['--pre', '--hostname-bin']),
  ag: new Set(['--pager']),
  man: new Set(['--pager', '--html', '-P', '-H']),
};
const READ_TOOL_LONG_WITH_ARG: Record<ReadTool, ReadonlySet<string>> = {
  rg: new Set(['--after-context', '--before-context', '--color', '--colors', '--context', '--context-separator', '--dfa-size-limit', '--encoding', '--engine', '--field-context-separator', '--field-match-separator', '--file', '--generate', '--glob', '--hostname-bin', '--hyperlink-format', '--iglob', '--ignore-file', '--max-columns', '--max-count', '--max-depth', '--max-filesize', '--path-separator', '--pre', '--pre-glob', '--regex-size-limit', '--regexp', '--replace', '--sort', '--sortr', '--threads', '--type', '--type-add', '--type-clear', '--type-not']),
  sort: new Set(['--batch-size', '--buffer-size', '--compress-program', '--field-separator', '--files0-from', '--key', '--output', '--parallel', '--random-source', '--sort', '--temporary-directory']),
  man: new Set(['--config-file', '--encoding', '--extension', '--locale', '--manpath', '--pager', '--preprocessor', '--prompt', '--recode', '--sections', '--systems']),
  ag: new Set(['--ackmate-dir-filter', '--color-line-number', '--color-match', '--color-path', '--depth', '--filename-pattern', '--file-search-regex', '--ignore', '--ignore-dir', '--max-count', '--pager', '--path-to-ignore', '--width', '--workers']),
};
const READ_TOOL_SHORT_WITH_ARG: Record<ReadTool, ReadonlySet<string>> = {
  rg: new Set('efEmjgdtTABCMr'),
  sort: new Set('koStT'),
  man: new Set('CRLmMSserEPp'),
  ag: new Set('gGmpW'),
};
const isReadTool = (name: string): name is ReadTool => Object.hasOwn(READ_TOOL_EXEC_FLAGS, name);

/** Hermes' _read_tool_exec_flag: [option, program] when a read-only tool is told to run a program. */
function readToolExecFlag(tool: ReadTool, args: string[]): [string, string] | null {
  const flags = READ_TOOL_EXEC_FLAGS[tool];
  let index = 0;
  while (index < args.length) {
    const token = args[index]!;
    if (token === '--') break;
    let [option, payload] = splitOption(token);
    let matched = flags.has(option) ? option : null;
    if (tool === 'man' && (token.startsWith('-P') || token.startsWith('-H')) && token.length > 2) {
      matched = token.slice(0, 2);
      payload = token.slice(2);
    }
    if (matched) {
      if (payload === null && index + 1 < args.length) payload = args[index + 1]!;
      if (payload) return [matched, payload];
      index += payload !== null && !token.includes('=') ? 2 : 1;
      continue;
    }
    if (READ_TOOL_LONG_WITH_ARG[tool].has(option) && payload === null) {
      index += 2;
      continue;
    }
    if (token.startsWith('-') && !token.startsWith('--') && token.length > 1) {
      const shorts = token.slice(1);
      const at = [...shorts].findIndex((ch) => READ_TOOL_SHORT_WITH_ARG[tool].has(ch));
      index += at >= 0 && at === shorts.length - 1 ? 2 : 1;
      continue;
    }
    index++;
  }
  return null;
}

interface Finding {
  key: string;
  /** The command text the option runs, when it is one (bash -c, rg --pre, …). */
  payload: string | null;
}

interface SegmentWords {
  /** Offset of the segment in the command. */
  at: number;
  segment: string;
  spans: Array<[number, number, string]>;
}

/** Each top-level segment of `c` with its command-position words (read once per command). */
function segmentWords(c: string, budget: Budget): SegmentWords[] {
  return topLevelSegments(c).map(([at, segment]) => ({ at, segment, spans: commandWordSpans(segment, budget) }));
}

/** Hermes' _execution_flag_findings: how each command (as normalised, case kept) runs a program it was handed. */
function executionFindings(words: SegmentWords[], budget: Budget): Finding[] {
  const out: Finding[] = [];
  for (const { segment, spans } of words) {
    for (const [start, , word] of spans) {
      const executable = deobfuscateWord(word);
      const name = basename(executable).toLowerCase();
      const family = interpreterFamily(executable);
      const shell = name === 'bash' || name === 'sh' || name === 'zsh' || name === 'ksh';
      if (!family && !shell && !isReadTool(name)) continue;
      spend(budget, segment.length - start);
      const tokens = shellTokens(segment.slice(start));
      if (tokens === null) {
        if (family || isReadTool(name)) out.push({ key: MALFORMED_EXEC_KEY, payload: null });
        continue;
      }
      if (tokens.length === 0) continue;
      const args = tokens.slice(1);
      if (family) {
        if (interpreterExecFlag(family, args)) {
          out.push({ key: 'script execution via -e/-c flag', payload: null });
          continue;
        }
        if (args.some((t) => t.startsWith('<<'))) {
          out.push({ key: 'script execution via heredoc', payload: null });
          continue;
        }
      }
      if (shell) {
        const [found, payload] = bashExecPayload(args);
        if (found) out.push({ key: 'shell command via -c/-lc flag', payload });
      }
      if (isReadTool(name)) {
        const finding = readToolExecFlag(name, args);
        if (finding) out.push({ key: `arbitrary program execution via ${name} ${finding[0]}`, payload: finding[1] });
      }
    }
  }
  return out;
}

/** Every program text the command hands to an option that runs it (bash -c …, recursively), in Hermes' order. */
function programPayloads(c: string, findings: Finding[], budget: Budget): string[] {
  const seen = new Set<string>([c]);
  const out: string[] = [];
  const pending: Finding[][] = [findings];
  while (pending.length > 0) {
    for (const { payload } of pending.pop()!) {
      if (!payload || seen.has(payload)) continue;
      seen.add(payload);
      out.push(payload);
      spend(budget, payload.length);
      pending.push(executionFindings(segmentWords(payload, budget), budget));
    }
  }
  return out;
}

const GREP_OPTIONS_WITH_ARG = new Set(['--after-context', '--before-context', '--binary-files', '--context', '--directories', '--devices', '--exclude', '--exclude-dir', '--exclude-from', '--include', '--label', '--max-count', '--regexp', '--file']);
const GREP_SHORT_WITH_ARG = new Set('ABCDdefm');

/**
 * Hermes' _grep_safe_detection_variant: the command with each quoted `grep -P` pattern blanked
 * (a regex is data, not a command), or 'malformed' when a grep's arguments cannot be read.
 */
function grepSafeVariant(c: string, words: SegmentWords[], budget: Budget): string | 'malformed' {
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
