import { constants } from 'node:os';

// What Hermes (since 0.22.2) adds to a foreground result about how a command ended, re-expressed:
// signal deaths in exit_code_meaning (tools/terminal_tool_result.py _interpret_signal_exit) and
// one recovery `hint` for a failed command, or a warning when an exit 0 probably hides a failure
// (tools/terminal_hints.py annotate_failure, annotate_masked_success). Two of Hermes' hints advise
// what the gateway does not do (a foreground timeout up to 600 s or background=true; a saved
// full-output file): their advice is the gateway's, the rest is Hermes' wording.

/** Signal-death notes by signal number (Hermes' _SIGNAL_EXIT_NOTES; 2/SIGINT deliberately absent). */
const SIGNAL_EXIT_NOTES: Readonly<Record<number, string>> = {
  3: 'SIGQUIT (quit from keyboard)',
  4: 'SIGILL (illegal instruction — corrupt binary or wrong architecture)',
  6: 'SIGABRT (abort — assertion failure, fatal runtime error, or glibc abort)',
  7: 'SIGBUS (bus error — misaligned or unmapped memory access)',
  8: 'SIGFPE (fatal arithmetic error, e.g. integer division by zero)',
  9: 'SIGKILL — often the kernel OOM killer on memory exhaustion, or an explicit kill -9',
  11: 'SIGSEGV (segmentation fault — the program crashed)',
  13: 'SIGPIPE (wrote to a closed pipe — e.g. output piped to a reader that exited)',
  15: 'SIGTERM (terminated — kill/timeout or shutdown requested it to stop)',
  24: 'SIGXCPU (CPU time limit exceeded)',
  25: 'SIGXFSZ (file size limit exceeded)',
};

/** The note for an exit code that means a signal ended the command (-N, or 128+N as bash reports it), or undefined. */
export function signalExitNote(exitCode: number): string | undefined {
  if (exitCode < 0) {
    const signum = -exitCode;
    if (signum === 2) return undefined;
    const note = SIGNAL_EXIT_NOTES[signum];
    if (note !== undefined) return `Command terminated by signal ${signum}: ${note}`;
    const name = Object.entries(constants.signals).find(([, n]) => n === signum)?.[0];
    return name ? `Command terminated by ${name} (signal ${signum})` : `Command terminated by signal ${signum} (signal ${signum})`;
  }
  const note = exitCode > 128 ? SIGNAL_EXIT_NOTES[exitCode - 128] : undefined;
  return note !== undefined ? `Exit code ${exitCode} usually means the command was terminated by signal ${exitCode - 128}: ${note}` : undefined;
}

/** Only the head of the output is scanned (Hermes' _SCAN_CHARS, in code points). */
const SCAN_CHARS = 4000;

function scanWindow(output: string): string {
  if (output.length <= SCAN_CHARS) return output;
  return Array.from(output.slice(0, SCAN_CHARS * 2)).slice(0, SCAN_CHARS).join('');
}

type OutputHint = (output: string) => string | undefined;

/** A hint when `pattern` matches: `{0}` in the message is the first group, or the message is built from it. */
function regexHint(pattern: RegExp, message: string | ((group: string) => string)): OutputHint {
  return (output) => {
    const m = pattern.exec(output);
    if (!m) return undefined;
    const group = m[1] ?? '';
    return typeof message === 'function' ? message(group) : message.replace('{0}', () => group);
  };
}

const MISSING_COMMAND_HINTS: Readonly<Record<string, string>> = {
  python: 'This system has no bare `python` — use `python3`, or the project venv\'s interpreter (e.g. .venv/bin/python).',
  pip: 'This system has no bare `pip` — use `pip3`, `python3 -m pip`, or the project venv\'s pip (e.g. .venv/bin/pip).',
};

function missingCommandHint(missing: string): string {
  return Object.hasOwn(MISSING_COMMAND_HINTS, missing)
    ? MISSING_COMMAND_HINTS[missing]!
    : `\`${missing}\` is not installed or not on PATH. Verify with \`which ${missing}\`; install it or use an absolute path instead of retrying the same command.`;
}

// Python's \w on text is Unicode letters, digits and the underscore.
const W = '[\\p{L}\\p{N}_]';

/** Hermes' output hints, in its order (first match wins). */
const OUTPUT_HINTS: readonly OutputHint[] = [
  regexHint(new RegExp(`Unknown JSON field: "?(${W}+)`, 'u'), "The installed gh does not support the JSON field '{0}'. The valid field list is printed in the output above — retry using only fields from that list."),
  regexHint(/^CONFLICT |Automatic merge failed|needs merge/m, 'Git merge conflict. Do not retry this command. Resolve the conflicted files listed above (edit, then `git add`), then continue (`git rebase --continue` / commit the merge) — or abort with `--abort`.'),
  regexHint(new RegExp(`(?:bash: line \\d+: |bash: |sh: \\d*:? ?)?((?:${W}|[.+-])+): command not found`, 'u'), missingCommandHint),
  regexHint(
    new RegExp(`(?:ModuleNotFoundError|ImportError): No module named '?((?:${W}|\\.)+)`, 'u'),
    "Python cannot import '{0}'. Most often the wrong interpreter is running: activate the project venv (e.g. `source .venv/bin/activate`) or invoke its python directly. Only pip install if the package is genuinely absent from that venv.",
  ),
  regexHint(/(?:fatal|error):[^\n]*?'([^']+)' already exists/, "'{0}' already exists — retrying unchanged will keep failing. Reuse it, choose another name, or delete it first if it is genuinely stale."),
  regexHint(/API rate limit|was submitted too quickly/, 'GitHub API rate limit hit — immediate retries will keep failing. Continue with other work and retry this operation later.'),
  regexHint(/Permission denied|EACCES/, 'Permission denied. Check ownership/mode of the target path (`ls -la`); prefer a user-writable location. Only escalate to sudo if the task genuinely requires it.'),
];

/** Exit-code-only hints, after the output hints (Hermes' _EXIT_CODE_HINTS; 124's advice is the gateway's). */
function exitCodeHint(exitCode: number, maxTimeoutSeconds: number): string | undefined {
  switch (exitCode) {
    case 126:
      return 'Exit 126: the file was found but is not executable — `chmod +x` it or invoke it via its interpreter (e.g. `bash script.sh`).';
    case 137:
      return 'Exit 137: the process was SIGKILLed — usually out-of-memory or an external kill. Reduce memory use or check `dmesg | tail` before retrying.';
    case 124:
      return `Exit 124: the command hit its timeout. Raise timeout= (at most ${maxTimeoutSeconds}s here) or run it as a job (job_prepare + job_start), which has no such limit.`;
    default:
      return undefined;
  }
}

const PASSTHROUGH_CONSUMERS = '(?:tail|head|cat|tee|less|more|wc|sort|uniq)';

/** Command shapes that swallow an upstream failure, each with its warning (Hermes' _MASKING_SHAPES; the pipe's advice is the gateway's). */
const MASKING_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [
    new RegExp(`(?<!\\|)\\|(?!\\|)\\s*${PASSTHROUGH_CONSUMERS}\\b[^|]*$`),
    'exit_code 0 here is the status of the last pipeline command (tail/head/cat/...), NOT of the command before the pipe — and the output contains failure indicators. Treat this run as FAILED until proven otherwise: re-run the command WITHOUT the pipe (a long output is cut to its head and tail, so piping through tail/head is never needed) to get the real exit code.',
  ],
  [
    /\|\|\s*(?:echo\b|printf\b|true\b|:\s|:$)/,
    'exit_code 0 here is the status of the `||` fallback (echo/true), NOT of the command before it — and the output contains failure indicators. Treat this run as FAILED until proven otherwise: re-run the command bare to get its real exit code.',
  ],
];

const READONLY_HEADS = new Set(['grep', 'rg', 'ag', 'find', 'ls', 'cat', 'head', 'tail', 'jq', 'awk', 'sed', 'strings', 'zcat', 'journalctl', 'dmesg', 'echo', 'printf']);

// Hermes' _FAILURE_SHAPES, split in two: its line-anchored alternatives need the m flag.
const FAILURE_SHAPES = /error\[E\d+\]|error: could not compile|error: aborting due to|Traceback \(most recent call last\)|compilation terminated\.|npm ERR!|BUILD FAILED|Build FAILED|FAILED: /;
const FAILURE_LINE_SHAPES = /^(?:=+ )?\d+ failed|^FAILED (?:\S+::|\S+\.py)|^make(?:\[\d+\])?: \*\*\*/m;

/** The command's head word, after leading VAR=value assignments, without its path (Hermes' _first_token). */
function firstToken(command: string): string {
  for (const token of command.trim().split(/\s+/).filter((t) => t !== '')) {
    if (!token.includes('=') || token.startsWith('=') || token.startsWith('./') || token.startsWith('/')) return token.slice(token.lastIndexOf('/') + 1);
  }
  return '';
}

/** A warning when an exit 0 probably masks a failure (the caller gates on exit 0). */
function maskedSuccessHint(command: string, output: string): string | undefined {
  const window = scanWindow(output);
  if (command === '' || window === '' || READONLY_HEADS.has(firstToken(command)) || !(FAILURE_SHAPES.test(window) || FAILURE_LINE_SHAPES.test(window))) return undefined;
  return MASKING_SHAPES.find(([shape]) => shape.test(command))?.[1];
}

/** One recovery hint for a failed command, or undefined. */
function failureHint(exitCode: number, output: string, maxTimeoutSeconds: number): string | undefined {
  const window = scanWindow(output);
  if (window !== '') {
    for (const hint of OUTPUT_HINTS) {
      const found = hint(window);
      if (found !== undefined) return found;
    }
  }
  return exitCodeHint(exitCode, maxTimeoutSeconds);
}

/**
 * The result's `hint` (Hermes' _failure_hint): on exit 0 the masked-success warning; on a
 * failure that has no exit_code_meaning, the recovery hint. `output` is the result's output.
 */
export function terminalHint(command: string, exitCode: number, output: string, meaning: string | undefined, maxTimeoutSeconds: number): string | undefined {
  if (exitCode === 0) return maskedSuccessHint(command, output);
  return meaning === undefined ? failureHint(exitCode, output, maxTimeoutSeconds) : undefined;
}
