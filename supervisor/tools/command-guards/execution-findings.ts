import { basename, segmentWords, spend, type Budget, type SegmentWords } from './command-words.js';
import { deobfuscateWord } from './normalise.js';
import { shellTokens, splitOption } from './shell-tokens.js';

// How a command runs programs it was handed (Hermes' _execution_flag_findings, tools/approval.py):
// an interpreter told to run inline code (python -c, node -e, a heredoc), a shell's -c, and a
// read-only tool told to run a program (rg --pre, sort --compress-program, man -P, …). Each is a
// dangerous verdict of its own; the shell and read-tool payloads are judged again as commands.

/** Hermes' description for a command its parser refuses to judge (always blocked). */
export const MALFORMED_EXEC_KEY = 'command parser limit or malformed executable payload';

type Family = 'python' | 'node' | 'perl' | 'ruby' | 'php' | 'powershell' | 'bun' | 'deno';

function interpreterFamily(executable: string): Family | null {
  const name = basename(executable).toLowerCase();
  if (/^(?:py(?:\.exe)?|python[23]?(?:\.\d+)*(?:\.exe)?)$/.test(name)) return 'python';
  if (/^node(?:js)?(?:\.exe)?$/.test(name)) return 'node';
  if (/^perl[0-9]*(?:\.\d+)*(?:\.exe)?$/.test(name)) return 'perl';
  if (/^ruby[0-9.]*(?:\.exe)?$/.test(name)) return 'ruby';
  if (/^php(?:\.exe)?$/.test(name)) return 'php';
  if (/^(?:powershell|pwsh)(?:\.exe)?$/.test(name)) return 'powershell';
  // bun and deno: Hermes after 0.19 (approval_detection.py _INTERPRETER_NAME_RES).
  if (/^bun(?:\.exe)?$/.test(name)) return 'bun';
  if (/^deno(?:\.exe)?$/.test(name)) return 'deno';
  return null;
}

const INTERPRETER_EXEC_FLAGS: Record<Family, ReadonlySet<string>> = {
  python: new Set(['-c']),
  node: new Set(['-e', '--eval', '-p', '--print']),
  perl: new Set(['-e', '--eval']),
  ruby: new Set(['-e']),
  php: new Set(['-r']),
  powershell: new Set(['-command', '-c', '-file', '-f']),
  bun: new Set(['-e', '--eval']),
  deno: new Set(['eval', '-e', '--eval']),
};
const INTERPRETER_WITH_ARG: Record<Family, ReadonlySet<string>> = {
  python: new Set(['-W', '-X', '--check-hash-based-pycs']),
  node: new Set(['-C', '--conditions', '--cpu-prof-dir', '--diagnostic-dir', '--icu-data-dir', '--import', '--loader', '--openssl-config', '--require', '--title']),
  perl: new Set(['-0', '-F', '-I', '-M', '-m', '-x']),
  ruby: new Set(['-C', '-E', '-F', '-I', '-K', '-r']),
  php: new Set(['-c', '-d', '-z']),
  powershell: new Set(['-configurationname', '-custompipename', '-executionpolicy', '-inputformat', '-outputformat', '-settingsfile', '-version', '-windowstyle', '-workingdirectory']),
  bun: new Set(['--config', '--cwd', '--env-file', '--preload', '--require']),
  deno: new Set(['-L', '--log-level']),
};


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
    if (token === '--' || (family !== 'powershell' && !token.startsWith('-'))) {
      // Deno runs inline code with a bare `eval` subcommand: the first word after its options.
      if (family === 'deno' && token.toLowerCase() === 'eval') return 'eval';
      break;
    }
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

/** Shells whose -c runs a command string (Hermes' _SHELL_NAMES; dash since after 0.19). */
const SHELL_NAMES = new Set(['bash', 'sh', 'zsh', 'ksh', 'dash']);

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

/** Every description a finding of executionFindings can carry. */
export const EXECUTION_FINDING_KEYS: readonly string[] = [
  'script execution via -e/-c flag',
  'script execution via heredoc',
  'shell command via -c/-lc flag',
  ...Object.entries(READ_TOOL_EXEC_FLAGS).flatMap(([tool, flags]) => [...flags].map((flag) => `arbitrary program execution via ${tool} ${flag}`)),
];

export interface Finding {
  key: string;
  /** The command text the option runs, when it is one (bash -c, rg --pre, …). */
  payload: string | null;
}

/** Hermes' _execution_flag_findings: how each command (as normalised, case kept) runs a program it was handed. */
export function executionFindings(words: SegmentWords[], budget: Budget): Finding[] {
  const out: Finding[] = [];
  for (const { segment, spans } of words) {
    for (const [start, , word] of spans) {
      const executable = deobfuscateWord(word);
      const name = basename(executable).toLowerCase();
      const family = interpreterFamily(executable);
      const shell = SHELL_NAMES.has(name);
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
export function programPayloads(c: string, findings: Finding[], budget: Budget): string[] {
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
