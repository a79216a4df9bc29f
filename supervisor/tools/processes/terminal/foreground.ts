import { realpathSync } from 'node:fs';
import { stripAnsi } from '../../../../shared/output-cap.js';
import { pythonStrip } from '../../../../shared/python-strip.js';
import type { ExecResult } from '../../../../shared/worker-protocol/exec.js';
import { commandOutput } from '../../../core/result.js';
import { styledTwin } from '../../../core/styled.js';
import type { ToolOutcome } from '../../../core/tool-types.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import { stripInertHeredocBodies } from './heredoc.js';
import { signalExitNote, terminalHint } from './hints.js';

// What a foreground command gets, shared by direct terminal and execute_code's hermes_tools.terminal:
// Hermes' refusal of a command that backgrounds work itself, or the result Hermes builds.

/** The Hermes release's feature answers (HermesRelease, or the terminal's answers decided once at startup). */
export type ReleaseFeatures = Pick<HermesRelease, 'has'>;

// ---------------------------------------------------------------------------------------------
// The foreground result, as Hermes' terminal_tool (tools/terminal_tool.py) builds it
// ---------------------------------------------------------------------------------------------

/**
 * The captured output within `maxChars` code points, the way Hermes' bounded foreground capture
 * renders it (tools/environments/base.py _BoundedOutputCollector.render): a 40% head / 60% tail
 * window whose truncation notice (digits grouped, `{n:,}`) and `suffix` (the timeout line) count
 * inside the budget, so the result is never longer than `maxChars`.
 */
function renderCapture(text: string, maxChars: number, suffix = ''): string {
  const max = Math.max(1, Math.trunc(maxChars));
  if (suffix.length >= max) return suffix.slice(-max);
  const available = max - suffix.length;
  // Code points never outnumber UTF-16 units: a short text needs no counting.
  if (text.length <= available) return text + suffix;
  const points = Array.from(text);
  const total = points.length;
  if (total <= available) return text + suffix;
  // What the collector kept while streaming: the first 40% of maxChars, and the last 60% of what followed.
  const headLimit = Math.trunc(max * 0.4);
  const tailLimit = max - headLimit;
  const headKept = points.slice(0, headLimit);
  const afterHead = points.slice(headLimit);
  const tailKept = afterHead.slice(Math.max(0, afterHead.length - tailLimit));
  let notice = '';
  for (let i = 0; i < 4; i++) {
    const budget = Math.max(0, available - notice.length);
    const head = Math.trunc(budget * 0.4);
    const omitted = Math.max(0, total - head - (budget - head));
    const updated = `\n\n... [OUTPUT TRUNCATED - ${omitted.toLocaleString('en-US')} chars omitted out of ${total.toLocaleString('en-US')} total] ...\n\n`;
    if (updated === notice) break;
    notice = updated;
  }
  const budget = Math.max(0, available - notice.length);
  const headChars = Math.trunc(budget * 0.4);
  const tailChars = budget - headChars;
  const tail = tailChars > 0 ? tailKept.slice(Math.max(0, tailKept.length - tailChars)).join('') : '';
  return headKept.slice(0, headChars).join('') + notice.slice(0, available) + tail + suffix;
}

/** Hermes' notes for non-zero exit codes that are not errors (tools/terminal_tool.py _interpret_exit_code). */
const EXIT_CODE_MEANINGS: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  grep: { 1: 'No matches found (not an error)' },
  egrep: { 1: 'No matches found (not an error)' },
  fgrep: { 1: 'No matches found (not an error)' },
  rg: { 1: 'No matches found (not an error)' },
  ag: { 1: 'No matches found (not an error)' },
  ack: { 1: 'No matches found (not an error)' },
  diff: { 1: 'Files differ (expected, not an error)' },
  colordiff: { 1: 'Files differ (expected, not an error)' },
  find: { 1: 'Some directories were inaccessible (partial results may still be valid)' },
  test: { 1: 'Condition evaluated to false (expected, not an error)' },
  '[': { 1: 'Condition evaluated to false (expected, not an error)' },
  curl: { 6: 'Could not resolve host', 7: 'Failed to connect to host', 22: 'HTTP response code indicated error (e.g. 404, 500)', 28: 'Operation timed out' },
  git: { 1: "Non-zero exit (often normal — e.g. 'git diff' returns 1 when files differ)" },
};

/**
 * What a non-zero exit code means when it is not a failure (grep 1 = no matches, diff 1 = files
 * differ, ...), judged on the last command of a pipeline or chain; undefined otherwise. With
 * `signals` (Hermes since 0.22.2), a signal death is noted first.
 */
function exitCodeMeaning(command: string, exitCode: number, signals = false): string | undefined {
  if (exitCode === 0) return undefined;
  const signal = signals ? signalExitNote(exitCode) : undefined;
  if (signal !== undefined) return signal;
  const segments = command.split(/\s*(?:\|\||&&|[|;])\s*/);
  const words = pythonStrip(segments[segments.length - 1] ?? command).split(/[\t-\r\x1c-\x20\x85\xa0]+/).filter((w) => w !== '');
  const first = words.find((w) => !(w.includes('=') && !w.startsWith('-')));
  if (first === undefined) return undefined;
  const base = first.split('/').pop()!;
  return Object.hasOwn(EXIT_CODE_MEANINGS, base) ? EXIT_CODE_MEANINGS[base]![exitCode] : undefined;
}

/** The bounded capture (renderCapture) before its sequences are stripped. */
function capture(output: string, maxChars: number, suffix: string): string {
  const rendered = renderCapture(output, maxChars, suffix);
  // A command that printed nothing before its deadline: the timeout line alone, without its leading newline.
  return output === '' && suffix !== '' ? rendered.replace(/^[\t-\r\x1c-\x20\x85\xa0]+/, '') : rendered;
}

/** What the foreground result depends on besides the command's own outcome. */
export interface ForegroundContext {
  /** The Hermes followed: which optional fields the result has. */
  release: ReleaseFeatures;
  /** The directory the command started in (its workdir or the session's cwd): its relative operands are judged there. */
  startedIn?: string;
  /** The longest timeout this caller may ask for (the advice of the exit-124 hint). */
  maxTimeoutSeconds: number;
  /** The gateway's HERMES_HOME (its config.yaml is a secret-bearing file the output redaction knows). */
  hermesHome: string;
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Where the command ended, when that is not where it started (Hermes' `cwd` field). A command cut
 * off by its deadline, or one whose directory could not be entered, reports nothing: Hermes'
 * wrapper never reached its cwd marker either.
 */
function changedDirectory(r: ExecResult, startedIn: string | undefined): string | undefined {
  if (r.timedOut || r.cwd === undefined || startedIn === undefined) return undefined;
  const from = realPath(startedIn);
  if (from === undefined) return undefined;
  return (realPath(r.cwd) ?? r.cwd) !== from ? r.cwd : undefined;
}

/**
 * The foreground result (output, exit_code, error, then cwd, exit_code_meaning and hint when they
 * apply, in Hermes' order), as terminal_tool answers for the Hermes followed. Its output goes
 * through Hermes' terminal output pipeline: the bounded capture (40% head / 60% tail, notice
 * inside the budget, the timeout line kept) -> ANSI strip -> strip surrounding whitespace, and is
 * marked as the command's, so the pipeline redacts it as redact_terminal_output does for that
 * command (redactCommandResult). With it, the output in its colours for the result view, when it
 * has any (core/styled.ts).
 */
export function foregroundOutcome(r: ExecResult, command: string, timeoutSeconds: number, maxChars: number, context: ForegroundContext): ToolOutcome {
  const { release } = context;
  const exitCode = r.timedOut ? 124 : r.exitCode;
  const captured = capture(r.output, maxChars, r.timedOut ? `\n[Command timed out after ${timeoutSeconds}s]` : '');
  // A command that printed nothing has no output to clean.
  const text = captured === '' ? '' : pythonStrip(stripAnsi(captured));
  const hints = release.has('terminal-failure-hints');
  const meaning = exitCodeMeaning(command, exitCode, hints);
  const cwd = release.has('terminal-result-cwd') ? changedDirectory(r, context.startedIn) : undefined;
  const hint = hints ? terminalHint(command, exitCode, text, meaning, context.maxTimeoutSeconds) : undefined;
  const twin = styledTwin(captured, text);
  return {
    structured: {
      output: commandOutput(text, command, { hermesHome: context.hermesHome, cwd: context.startedIn }),
      exit_code: exitCode,
      error: null,
      ...(cwd !== undefined ? { cwd } : {}),
      ...(meaning !== undefined ? { exit_code_meaning: meaning } : {}),
      ...(hint !== undefined ? { hint } : {}),
    },
    ...(twin !== undefined ? { styled: { output: twin } } : {}),
  };
}

// Hermes refuses, before anything runs, a foreground command that backgrounds work itself or looks
// like a server that never exits (tools/terminal_tool.py _foreground_background_guidance). Its
// advice is background=true, which direct terminal never does: here it points to a job.

const SHELL_LEVEL_BACKGROUND_RE = /(?:^|[;&|]\s*|&&\s*|\|\|\s*|\$\(\s*)(?:nohup|disown|setsid)\b/im;
const INLINE_BACKGROUND_AMP_RE = /\s&\s/;
const TRAILING_BACKGROUND_AMP_RE = /\s&\s*(?:#.*)?$/;
const LONG_LIVED_FOREGROUND_PATTERNS = [
  /\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|watch)\b/i,
  /\bdocker\s+compose\s+up\b/i,
  /\bnext\s+dev\b/i,
  /\bvite(?:\s|$)/i,
  /\bnodemon\b/i,
  /\buvicorn\b/i,
  /\bgunicorn\b/i,
  /\bpython(?:3)?\s+-m\s+http\.server\b/i,
];

function looksLikeHelpOrVersion(command: string): boolean {
  const n = command.toLowerCase().split(/\s+/).filter((w) => w !== '').join(' ');
  return n.includes(' --help') || n.endsWith(' -h') || n.includes(' --version') || n.endsWith(' -v');
}

/**
 * Quoted text removed, so keywords inside strings never count (Hermes' _strip_quotes); with
 * `heredocs` (Hermes since 0.22.2), inert heredoc bodies first (heredoc.ts).
 */
function withoutQuotedText(command: string, heredocs: boolean): string {
  const visible = heredocs ? stripInertHeredocBodies(command) : command;
  return visible.replace(/'[^']*'/g, "''").replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/`[^`]*`/g, '``');
}

/** Why a foreground command should be a job instead, or undefined. */
export function foregroundBackgroundGuidance(command: string, release: ReleaseFeatures): string | undefined {
  if (looksLikeHelpOrVersion(command)) return undefined;
  const unquoted = withoutQuotedText(command, release.has('terminal-heredoc-masking'));
  if (SHELL_LEVEL_BACKGROUND_RE.test(unquoted)) {
    return 'Foreground command uses shell-level background wrappers (nohup/disown/setsid). Run it as a job (job_prepare + job_start) so the gateway can track the process, then run readiness checks and tests in separate commands.';
  }
  if (INLINE_BACKGROUND_AMP_RE.test(unquoted) || TRAILING_BACKGROUND_AMP_RE.test(unquoted)) {
    return "Foreground command uses '&' backgrounding. Use a job (job_prepare + job_start) for long-lived processes, then run health checks and tests in follow-up terminal calls.";
  }
  if (LONG_LIVED_FOREGROUND_PATTERNS.some((p) => p.test(unquoted))) {
    return 'This foreground command appears to start a long-lived server/watch process. Run it as a job (job_prepare + job_start), verify readiness (health endpoint/log signal), then execute tests in a separate command.';
  }
  return undefined;
}
