// Command output (terminal, process_manage, execute_code's terminal, job receipts): which mode a
// command's output is redacted in, as Hermes' `redact_terminal_output` (agent/redact.py) picks it.
//
// Output is source-like by default (code mode: `MAX_TOKENS=100` and `"apiKey": "test"` fixtures
// stay), with the Python-repr pass on pytest and exception lines (newer Hermes). The whole output is
// redacted as ordinary text (every assignment pass) when the command prints the environment
// (`env`, `printenv`, `set`, `export`, `declare`) or reads a secret-bearing file to stdout (`cat
// .env`, `grep TOKEN ~/.bashrc`, `sed -n 1p ~/.hermes/config.yaml`; newer Hermes,
// `_command_reads_secret_file`, upstream #110228). The gateway answers yes where either Hermes
// version does: commands are split both ways the two versions split them (0.19 on every `| ; &`,
// newer Hermes only outside quotes).
//
// Defence in depth, not a boundary, as in Hermes: an indirect read (`sudo cat .env`,
// `$(cat .env)`, `python -c …`) is not recognised.

import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { redactPythonDiagnosticLines } from './fields.js';
import { outputMaskerKeepingMasksOf } from './mask.js';
import { redact } from './pipeline.js';

// ---------------------------------------------------------------------------------------------
// Secret-bearing files (shared with the file tools' rule, supervisor/tools/files/sensitive-paths.ts)
// ---------------------------------------------------------------------------------------------

/** Project environment files (Hermes agent/file_safety.py `_BLOCKED_PROJECT_ENV_BASENAMES`; `.env.example` is none). */
export const SECRET_ENV_FILE_BASENAMES: ReadonlySet<string> = new Set(['.env', '.env.local', '.env.development', '.env.production', '.env.test', '.env.staging', '.envrc']);
/** Shell start-up files (Hermes `_SHELL_RC_BASENAMES`): where `export API_KEY=…` lines live. */
export const SHELL_RC_BASENAMES: ReadonlySet<string> = new Set(['.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zprofile', '.zlogin', '.zshenv']);

/** Hermes' config.yaml, or one of the backup copies Hermes writes (`config.yaml.good.<stamp>`, `.corrupt.<stamp>`). */
export function isHermesConfigName(name: string): boolean {
  return name === 'config.yaml' || name.startsWith('config.yaml.good.') || name.startsWith('config.yaml.corrupt.');
}

// ---------------------------------------------------------------------------------------------
// Splitting a command
// ---------------------------------------------------------------------------------------------

/** Newer Hermes `_command_segments`: split on `|`, `;` and `&` outside quotes (a backslash is no escape: Windows paths). */
export function commandSegments(command: string): string[] {
  const segments: string[] = [];
  let current = '';
  let quote: string | undefined;
  const push = (): void => {
    const seg = current.trim();
    if (seg !== '') segments.push(seg);
    current = '';
  };
  for (const ch of command) {
    if (quote !== undefined) {
      current += ch;
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      current += ch;
    } else if (ch === '|' || ch === ';' || ch === '&') push();
    else current += ch;
  }
  push();
  return segments;
}

/** Hermes 0.19 `is_env_dump_command`'s split: on every run of `|`, `;` and `&`, quoted or not. */
function plainSegments(command: string): string[] {
  return command
    .split(/[|;&]+/)
    .map((seg) => seg.trim())
    .filter((seg) => seg !== '');
}

/** Both versions' segments of `command`. */
function everySegment(command: string): string[] {
  return [...new Set([...plainSegments(command), ...commandSegments(command)])];
}

/** The first word of a shell segment as shlex would split it (quotes removed), or undefined when it does not parse. */
function firstShellWord(segment: string): string | undefined {
  let word = '';
  let quote: string | undefined;
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < segment.length && (segment[i + 1] === '"' || segment[i + 1] === '\\')) word += segment[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '\\') {
      if (i + 1 < segment.length) word += segment[++i];
    } else if (/\s/.test(ch)) {
      if (word !== '') return word;
    } else word += ch;
  }
  return quote ? undefined : word || undefined;
}

// ---------------------------------------------------------------------------------------------
// Environment dumps
// ---------------------------------------------------------------------------------------------

/** Hermes' env-dump commands (agent/redact.py `_ENV_DUMP_COMMANDS`). */
const ENV_DUMP_COMMANDS: ReadonlySet<string> = new Set(['env', 'printenv', 'set', 'export', 'declare']);

/**
 * Whether `command` prints the environment (Hermes `is_env_dump_command`): env, printenv, set,
 * export or declare as the first word (as shlex splits it) of a `;` / `&` / `|` separated segment,
 * in either version's split.
 */
export function isEnvDumpCommand(command: string): boolean {
  for (const seg of everySegment(command)) {
    // shlex failing to parse (an open quote) falls back to splitting on whitespace.
    const first = firstShellWord(seg) ?? seg.split(/\s+/)[0];
    if (first !== undefined && ENV_DUMP_COMMANDS.has(first)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Reads of secret-bearing files (newer Hermes `_command_reads_secret_file`)
// ---------------------------------------------------------------------------------------------

/** Commands that print a file (Hermes `_FILE_READ_COMMANDS`), with the filters the model reaches for. */
const FILE_READ_COMMANDS: ReadonlySet<string> = new Set(['cat', 'head', 'tail', 'type', 'bat', 'less', 'more', 'nl', 'zcat', 'tac', 'view', 'batcat', 'grep', 'awk', 'sed']);
/** Readers whose first operand is a pattern or a program, not a file (Hermes `_PATTERN_FIRST_COMMANDS`). */
const PATTERN_FIRST_COMMANDS: ReadonlySet<string> = new Set(['grep', 'awk', 'sed']);
const HERMES_HOME_PREFIXES = ['$HERMES_HOME/', '${HERMES_HOME}/'];
const HOME_PREFIXES = ['$HOME/', '${HOME}/'];

/**
 * The directories Hermes' config.yaml lives in (Hermes `file_safety._hermes_dirs`): the Hermes home
 * (the gateway's HERMES_HOME, passed in by its caller; Hermes' default `~/.hermes` when none is)
 * and, under a profile (`<root>/profiles/<name>`), the root; real paths where they exist.
 */
function hermesDirs(hermesHome: string | undefined): string[] {
  const configured = hermesHome || join(homedir(), '.hermes');
  const home = resolve(configured.startsWith('~/') ? join(homedir(), configured.slice(2)) : configured);
  const parts = home.split(sep);
  const dirs = parts.length > 2 && parts.at(-2) === 'profiles' ? [home, parts.slice(0, -2).join(sep) || sep] : [home];
  return dirs.map(realOrSelf);
}

/** The real path of `path` (absolute), symlinks followed as far as it exists, as Python's os.path.realpath gives it. */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realOrSelf(parent), basename(path));
  }
}

/**
 * Where a command ran, as far as judging its operands goes: the gateway's HERMES_HOME (whose
 * config.yaml is a secret-bearing file; Hermes' default `~/.hermes` when none is given) and the
 * directory the command ran in (a relative operand names a file there; this process's directory
 * when none is given).
 */
export interface CommandPlace {
  hermesHome?: string;
  cwd?: string;
}

/**
 * Hermes `_is_under_hermes_home`: the path, with symlinks followed, is in a Hermes directory.
 * Hermes resolves a relative path against its own process's directory, which is where the command
 * runs for a Hermes CLI user; the gateway's commands run elsewhere, so a relative path is resolved
 * against the directory the command ran in (`place.cwd`).
 */
function isUnderHermesHome(path: string, place: CommandPlace): boolean {
  const expanded = path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
  const target = realOrSelf(isAbsolute(expanded) ? expanded : place.cwd !== undefined ? resolve(place.cwd, expanded) : resolve(expanded));
  return hermesDirs(place.hermesHome).some((dir) => target === dir || target.startsWith(dir.endsWith(sep) ? dir : dir + sep));
}

/**
 * Hermes `_is_secret_file_arg`: an operand naming an `.env`-type file or a shell rc anywhere, or
 * Hermes' config.yaml (and its backup copies) under `$HERMES_HOME`, a `.hermes` directory or the
 * Hermes home (`place.hermesHome`, the gateway's HERMES_HOME; a relative path judged from
 * `place.cwd`). A path holding another variable is not judged (its target is unknown).
 */
export function isSecretFileOperand(operand: string, place: CommandPlace = {}): boolean {
  let path = operand.replace(/^["']+|["']+$/g, '').replaceAll('\\', '/');
  let underHermesHomeVariable = false;
  for (const prefix of HERMES_HOME_PREFIXES) {
    if (path.startsWith(prefix)) {
      path = path.slice(prefix.length);
      underHermesHomeVariable = true;
      break;
    }
  }
  for (const prefix of HOME_PREFIXES) {
    if (path.startsWith(prefix)) {
      path = path.slice(prefix.length);
      break;
    }
  }
  if (path.includes('$')) return false;
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.toLowerCase());
  const name = parts.at(-1);
  if (name === undefined) return false;
  if (SECRET_ENV_FILE_BASENAMES.has(name) || SHELL_RC_BASENAMES.has(name)) return true;
  if (!isHermesConfigName(name)) return false;
  return underHermesHomeVariable || parts.slice(0, -1).includes('.hermes') || isUnderHermesHome(path, place);
}

/**
 * Whether `command` prints a secret-bearing file (Hermes `_command_reads_secret_file`): a segment
 * whose first word names a reader (by its base name) and whose operands (words not starting with
 * `-`; for grep, awk and sed the ones after the pattern) include a secret-bearing file.
 */
export function commandReadsSecretFile(command: string, place: CommandPlace = {}): boolean {
  for (const seg of everySegment(command)) {
    const words = seg.split(/\s+/).filter((w) => w !== '');
    const reader = words[0]?.split('/').at(-1)?.toLowerCase();
    if (reader === undefined || !FILE_READ_COMMANDS.has(reader)) continue;
    let operands = words.slice(1).filter((w) => !w.startsWith('-'));
    if (PATTERN_FIRST_COMMANDS.has(reader)) operands = operands.slice(1);
    if (operands.some((operand) => isSecretFileOperand(operand, place))) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The output
// ---------------------------------------------------------------------------------------------

/** Whether `command`'s whole output is redacted as ordinary text (every assignment pass), not as code. */
export function redactsWholeOutput(command: string, place: CommandPlace = {}): boolean {
  return isEnvDumpCommand(command) || commandReadsSecretFile(command, place);
}

/**
 * What `command` printed, redacted as Hermes' `redact_terminal_output` does: as ordinary text for an
 * environment dump or a read of a secret-bearing file; otherwise as code, plus the Python-repr pass
 * on pytest and exception lines, where a masked value the code pass left as head/tail becomes `***`.
 * `place`: the gateway's HERMES_HOME, whose config.yaml is a secret-bearing file, and the directory
 * the command ran in, against which its relative operands are judged.
 */
export function redactCommandOutput(text: string, command: string, place: CommandPlace = {}): string {
  if (text === '') return text;
  if (redactsWholeOutput(command, place)) return redact(text);
  return redactPythonDiagnosticLines(redact(text, { codeFile: true }), outputMaskerKeepingMasksOf(text));
}
