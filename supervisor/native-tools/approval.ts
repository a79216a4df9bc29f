import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { stripAnsi } from '../../shared/output-cap.js';
import { packageRoot } from '../../shared/package-root.js';
import type { GatewayConfig } from '../config.js';

// The gateway's approval guard: Hermes' dangerous-command detection (tools/approval.py), with the
// patterns as data in policy/dangerous-commands.json. A command is normalised like Hermes does it
// and matched as text, so it is a guard against accidents and prompt-injected one-liners, not a
// sandbox: a script file, an interpreter or an alias can always say the same thing differently.
//
//   - hardline: never runs through the gateway, whoever asks;
//   - dangerous: Hermes would ask the user. Inside execute_code the whole script was the one
//     approval (the host's consent covers that one script, never a session-wide grant), so the
//     caller denies these there.

type CommandVerdict = { verdict: 'allow' } | { verdict: 'hardline' | 'dangerous'; key: string };

interface CommandPattern {
  key: string;
  re: RegExp;
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
      return { key: entry.key, re };
    });
  return Object.freeze({ hardline: Object.freeze(compile('hardline')), dangerous: Object.freeze(compile('dangerous')) });
}

let cached: ApprovalPolicy | undefined;
/** The gateway's policy, loaded once. Callers touch it at startup so a bad file fails early. */
export function approvalPolicy(): ApprovalPolicy {
  cached ??= loadApprovalPolicy();
  return cached;
}

/**
 * Hardline before dangerous, each in file order over the command variants (Hermes' order).
 * Quoted text is matched like any other text (Hermes does the same): `echo "rm -rf /"` is
 * dangerous; hardline rm/shutdown forms need a command position, so it is not hardline.
 */
export function checkCommand(command: string, homes: CommandHomes, policy: ApprovalPolicy = approvalPolicy()): CommandVerdict {
  const normalised = normaliseCommand(command, homes);
  if (!normalised) return { verdict: 'allow' };
  const variants = [normalised];
  const starts = commandStartVariant(normalised);
  if (starts !== normalised) variants.push(starts);
  for (const verdict of ['hardline', 'dangerous'] as const) {
    for (const text of variants) {
      for (const { key, re } of policy[verdict]) if (re.test(text)) return { verdict, key };
    }
  }
  return { verdict: 'allow' };
}

// ---------------------------------------------------------------------------------------------
// Normalisation (Hermes' _normalize_command_for_detection, then whitespace and case)
// ---------------------------------------------------------------------------------------------

/** The text every pattern sees. Exported for tests. */
export function normaliseCommand(command: string, homes: CommandHomes): string {
  let c = stripAnsi(command).replace(/\0/g, '').normalize('NFKC');
  // A line continuation joins its two lines: `rm -rf \<newline>/` runs `rm -rf /`.
  c = c.replace(/\\\r?\n/g, '');
  c = foldHomes(c, homes);
  // r\m → rm, r''m → rm, rm${IFS}-rf → rm -rf: spellings the shell reads as the plain word.
  c = c.replace(/\\([^\n])/g, '$1');
  c = c.replace(/''|""/g, '');
  c = c.replace(/\$\{IFS\b[^}]*\}|\$IFS\b/g, ' ');
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
const LITERAL_SUBSTITUTION = new RegExp(String.raw`\$\(\s*(?:echo(?:\s+-[ne]+)*|printf(?:\s+['"]?%s['"]?)?)\s+${SIMPLE_LITERAL}\s*\)|\x60\s*(?:echo(?:\s+-[ne]+)*|printf(?:\s+['"]?%s['"]?)?)\s+${SIMPLE_LITERAL}\s*\x60`, 'g');

/** How the shell would spell a command word: literal $(echo x) / ${v:-x} / ${v/a/x} and quotes resolved. */
function deobfuscateWord(word: string): string {
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
