import { stripAnsi } from '../../../../shared/output-cap.js';
import { visibleOutput } from './pty-input.js';
import type { ProcessRegistry, TrackedProcess } from './registry.js';

// process_manage's reading actions (list, poll, log, wait) and kill: what each answers, as Hermes'
// process tool answers it for the Hermes followed (ProcessView).

/** How the answers read for the Hermes followed, and how output is shown. */
export interface ProcessView {
  /** Output as Hermes' process tool shows it: ANSI stripped, then (the pipeline) redacted as the output of the command, run in the process's cwd. */
  clean(text: string, p: TrackedProcess): unknown;
  /** The longest wait, in seconds. */
  maxWait: number;
  /** The newer list fields (persist_on_release, exited_at, completion_reason). */
  listFields: boolean;
  /** output_cut and process_running (since 0.22.2). */
  waitFields: boolean;
  /** log offset 0 = the first line (since 0.22.2; before, the last lines). */
  offsetHead: boolean;
}

/** Python's str.splitlines(): every line break Python knows, no empty last line. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Hermes' termination_source: who ended the process ('' when it ended by itself). */
function terminationSource(p: TrackedProcess): string {
  if (p.terminationSource) return p.terminationSource;
  return p.completionReason === 'lost' ? 'backend_lost' : '';
}

/** How the process ended, as Hermes' wait, poll and kill report it once it has. */
function ending(p: TrackedProcess): Record<string, unknown> {
  return { exit_code: p.exitCode ?? null, completion_reason: p.completionReason, termination_source: terminationSource(p) };
}

function status(p: TrackedProcess): 'running' | 'exited' {
  return p.exited ? 'exited' : 'running';
}

function uptime(p: TrackedProcess): number {
  return Math.round(((p.finishedAt ?? Date.now()) - p.startedAt) / 1000);
}

/** Python's len() of a string: its code points. */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Python's text[-n:]: the last `n` code points, never half of a surrogate pair. */
function lastCodePoints(text: string, n: number): string {
  let i = text.length;
  for (let k = 0; k < n && i > 0; k++) {
    i--;
    const u = text.charCodeAt(i);
    if (u >= 0xdc00 && u <= 0xdfff && i > 0) {
      const high = text.charCodeAt(i - 1);
      if (high >= 0xd800 && high <= 0xdbff) i--;
    }
  }
  return text.slice(i);
}

/** The tail a wait or kill shows (Hermes' completion-sized output), in characters. */
const COMPLETION_OUTPUT_CHARS = 2000;

/** The completion-sized tail, with output_cut when the output was longer (Hermes' _completion_output, since 0.22.2). */
function completion(p: TrackedProcess, view: ProcessView): Record<string, unknown> {
  const all = visibleOutput(p);
  const cut = codePoints(all) - COMPLETION_OUTPUT_CHARS;
  return { output: view.clean(lastCodePoints(all, COMPLETION_OUTPUT_CHARS), p), ...(view.waitFields && cut > 0 ? { output_cut: cut } : {}) };
}

/** The last `chars` characters of the output, shown. */
const outputTail = (p: TrackedProcess, chars: number, view: ProcessView) => view.clean(visibleOutput(p).slice(-chars), p);

export function listAnswer(processes: readonly TrackedProcess[], view: ProcessView): Record<string, unknown> {
  return {
    processes: processes.map((p) => ({
      session_id: p.id,
      command: p.command.slice(0, 200),
      cwd: p.cwd,
      pid: p.pid ?? null,
      started_at: new Date(p.startedAt).toISOString(),
      uptime_seconds: uptime(p),
      status: status(p),
      tty: p.terminal !== undefined,
      ...(p.jobId ? { job_id: p.jobId } : {}),
      output_preview: outputTail(p, 200, view),
      ...(view.listFields && p.persistOnRelease ? { persist_on_release: true } : {}),
      ...(p.exited ? { exit_code: p.exitCode ?? null } : {}),
      ...(view.listFields && p.exited ? { exited_at: (p.finishedAt ?? Date.now()) / 1000, completion_reason: p.completionReason ?? null } : {}),
    })),
  };
}

export function pollAnswer(p: TrackedProcess, view: ProcessView): Record<string, unknown> {
  return { session_id: p.id, command: p.command, status: status(p), pid: p.pid ?? null, tty: p.terminal !== undefined, uptime_seconds: uptime(p), output_preview: outputTail(p, 1000, view), ...(p.exited ? ending(p) : {}) };
}

export function logAnswer(p: TrackedProcess, offset: number | undefined, requestedLimit: number | undefined, view: ProcessView): Record<string, unknown> {
  const lines = splitLines(stripAnsi(visibleOutput(p)));
  const limit = requestedLimit ?? 200;
  // Hermes 0.19: offset 0 (or none) = the last lines; since 0.22.2 only an omitted offset does.
  const tail = offset === undefined || (offset === 0 && !view.offsetHead);
  const shown = tail ? lines.slice(-limit) : lines.slice(offset, offset + limit);
  return { session_id: p.id, command: p.command, status: status(p), output: view.clean(shown.join('\n'), p), total_lines: lines.length, showing: `${shown.length} lines` };
}

export async function waitAnswer(registry: ProcessRegistry, p: TrackedProcess, requested: number | undefined, signal: AbortSignal, view: ProcessView): Promise<Record<string, unknown>> {
  const { maxWait } = view;
  const { command } = p;
  const seconds = requested !== undefined && requested <= maxWait ? requested : maxWait;
  // Hermes' note when the request was over the limit; a plain timeout says how long it waited.
  const clamped = requested !== undefined && requested > maxWait ? { timeout_note: `Requested wait of ${requested}s was clamped to configured limit of ${maxWait}s` } : undefined;
  const exited = await registry.wait(p, seconds * 1000, signal);
  if (exited) return { status: 'exited', command, ...ending(p), ...completion(p, view), ...clamped };
  if (!view.waitFields) return { status: 'timeout', command, output: outputTail(p, 1000, view), ...(clamped ?? { timeout_note: `Waited ${seconds}s, process still running` }) };
  // Hermes' note says it is not an error; its advice (terminal background=true with
  // notify_on_complete) is the gateway's: nothing is delivered to the client on exit.
  const note = `Wait window of ${seconds}s elapsed — the process is still running. This is not an error. Uptime: ${uptime(p)}s. Poll again later or wait again; nothing is sent to the client when it exits (job_status shows its job).`;
  return { status: 'timeout', command, output: outputTail(p, 1000, view), process_running: true, timeout_note: clamped ? `${clamped.timeout_note}. ${note}` : note };
}

export async function killAnswer(registry: ProcessRegistry, p: TrackedProcess, view: ProcessView): Promise<Record<string, unknown>> {
  if (p.exited) return { status: 'already_exited', command: p.command, ...ending(p), ...completion(p, view) };
  p.terminationSource = 'process.kill';
  await registry.kill(p);
  return { status: 'killed', session_id: p.id, completion_reason: 'killed', termination_source: 'process.kill', ...completion(p, view) };
}
