import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { stripAnsi } from '../../../shared/output-cap.js';
import { commandOutput } from '../../core/result.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { HermesRelease } from '../../platform/hermes/release.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import { type InputAction, inputProperties, sendInput, visibleOutput } from './process-terminal.js';
import type { ProcessRegistry, TrackedProcess } from './registry.js';
import { hermesArgumentRepair } from '../../core/hermes-args.js';

// process_manage (Hermes' `process` tool): a session's background processes, by their proc_ id.
// The reading actions (list, poll, log, wait) and kill are here; the input actions (write, submit,
// close, resize) are process-terminal.ts, shared with job_input. Their results are redacted by the
// pipeline, once, as Hermes' _redact_process_result does (the `command-output` mode: output as
// redact_terminal_output shows it for the process's command, the command as code).
// What it answers follows the Hermes the gateway fronts (HermesRelease): 0.19's `process`, or
// 0.22.2's process_manage (handoff, ids by prefix, log offset 0 = the head, output_cut and
// process_running, the newer list fields).


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

const HANDOFF_REFUSED = 'handoff is only available to a running subagent with a live parent; you are not one.';

/** process_manage's input schema for the Hermes followed: Hermes' properties and enum (PROCESS_SCHEMA), plus resize with its cols/rows. */
export function processManageSchema(release: HermesRelease, limits: WorkerRuntime['config']['limits']): ToolDefinition['inputSchema'] {
  const newest = release.has('process-manage-schema');
  const input = inputProperties(limits);
  return {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ['list', 'poll', 'log', 'wait', 'kill', 'write', 'submit', 'close', ...(newest ? ['handoff'] : []), 'resize'] },
      session_id: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: `Which background process: its id \`proc_…\` (Hermes' name for the field), as action=list shows it for the processes this session's jobs started${release.has('process-id-prefix') ? "; any unique prefix of it works ('4dae' for proc_4dae56ca81f6)" : ''}. Required for every action but list. Not the session_token, which goes in tool_call.session_token.`,
      },
      timeout: { type: 'integer', minimum: 1, ...(newest ? { description: `Max seconds for 'wait' (at most ${limits.processWaitMaxSeconds}).` } : {}) },
      offset: { type: 'integer', minimum: 0, ...(newest ? { description: 'Log line offset (default: last 200; 0 = the first line).' } : {}) },
      limit: { type: 'integer', minimum: 1, ...(newest ? { description: 'Max log lines.' } : {}) },
      ...input,
      ...(newest ? { data: { ...input.data, description: 'Stdin text for write/submit; purpose sentence for handoff.' } } : {}),
    },
    required: ['action'],
    additionalProperties: false,
  };
}

export function processManageTool(registry: ProcessRegistry, runtime: WorkerRuntime, release: HermesRelease): ToolDefinition {
  const { limits, hermesHome } = runtime.config;
  /** Output as Hermes' process tool shows it: ANSI stripped, then (the pipeline) redacted as the output of the command, run in the process's cwd. */
  const clean = (text: string, p: TrackedProcess) => commandOutput(stripAnsi(text), p.command, { hermesHome, cwd: p.cwd });
  const maxWait = limits.processWaitMaxSeconds;
  const handoff = release.has('process-manage-schema');
  const listFields = release.has('process-list-fields');
  const waitFields = release.has('process-wait-fields');
  const offsetHead = release.has('process-log-offset-head');
  const inputSchema = processManageSchema(release, limits);
  /** The completion-sized tail, with output_cut when the output was longer (Hermes' _completion_output, since 0.22.2). */
  const completion = (p: TrackedProcess) => {
    const all = visibleOutput(p);
    const cut = codePoints(all) - COMPLETION_OUTPUT_CHARS;
    return { output: clean(lastCodePoints(all, COMPLETION_OUTPUT_CHARS), p), ...(waitFields && cut > 0 ? { output_cut: cut } : {}) };
  };
  return {
    name: 'process_manage',
    description: `Manage this session's background processes (started by jobs): list, poll, log, wait (at most ${maxWait} s per call), kill, write/submit stdin, close stdin; for a job prepared with pty: true, write/submit go to its terminal (submit presses Enter), close sends ^D and resize changes its window (cols/rows).${handoff ? ' handoff is for subagents, which this gateway has none of: it is always refused.' : ''} Needs the session (session_token or MCP session) that owns them.`,
    inputSchema,
    // Hermes' dispatch coercion ("10" for offset/limit/timeout) before the schema.
    coerceArguments: hermesArgumentRepair(inputSchema),
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: false },
    requiresOwner: true,
    redaction: 'command-output',
    async handler(args, ctx) {
      const action = args.action as 'list' | 'poll' | 'log' | 'wait' | 'kill' | 'handoff' | InputAction;
      if (action === 'handoff' && handoff) {
        // Hermes answers a caller that is not a running subagent this way, whatever the id; every
        // caller here is a top-level session (its jobs already outlive it).
        if (typeof args.session_id !== 'string') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'session_id is required for handoff');
        throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, HANDOFF_REFUSED);
      }
      if (action === 'list') {
        return {
          structured: {
            processes: registry.list(ctx.owner.id).map((p) => ({
              session_id: p.id,
              command: p.command.slice(0, 200),
              cwd: p.cwd,
              pid: p.pid ?? null,
              started_at: new Date(p.startedAt).toISOString(),
              uptime_seconds: uptime(p),
              status: status(p),
              tty: p.terminal !== undefined,
              ...(p.jobId ? { job_id: p.jobId } : {}),
              output_preview: clean(visibleOutput(p).slice(-200), p),
              ...(listFields && p.persistOnRelease ? { persist_on_release: true } : {}),
              ...(p.exited ? { exit_code: p.exitCode ?? null } : {}),
              ...(listFields && p.exited ? { exited_at: (p.finishedAt ?? Date.now()) / 1000, completion_reason: p.completionReason ?? null } : {}),
            })),
          },
        };
      }
      if (typeof args.session_id !== 'string') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `session_id is required for ${action}`);
      const p = registry.get(ctx.owner.id, args.session_id);
      const { command } = p;
      const out = (chars: number) => clean(visibleOutput(p).slice(-chars), p);
      switch (action) {
        case 'poll':
          return { structured: { session_id: p.id, command, status: status(p), pid: p.pid ?? null, tty: p.terminal !== undefined, uptime_seconds: uptime(p), output_preview: out(1000), ...(p.exited ? ending(p) : {}) } };
        case 'log': {
          const lines = splitLines(stripAnsi(visibleOutput(p)));
          const limit = (args.limit as number | undefined) ?? 200;
          const offset = args.offset as number | undefined;
          // Hermes 0.19: offset 0 (or none) = the last lines; since 0.22.2 only an omitted offset does.
          const tail = offset === undefined || (offset === 0 && !offsetHead);
          const shown = tail ? lines.slice(-limit) : lines.slice(offset, offset + limit);
          return { structured: { session_id: p.id, command, status: status(p), output: clean(shown.join('\n'), p), total_lines: lines.length, showing: `${shown.length} lines` } };
        }
        case 'wait': {
          const requested = args.timeout as number | undefined;
          const seconds = requested !== undefined && requested <= maxWait ? requested : maxWait;
          // Hermes' note when the request was over the limit; a plain timeout says how long it waited.
          const clamped = requested !== undefined && requested > maxWait ? { timeout_note: `Requested wait of ${requested}s was clamped to configured limit of ${maxWait}s` } : undefined;
          const exited = await registry.wait(p, seconds * 1000, ctx.signal);
          if (exited) return { structured: { status: 'exited', command, ...ending(p), ...completion(p), ...clamped } };
          if (!waitFields) return { structured: { status: 'timeout', command, output: out(1000), ...(clamped ?? { timeout_note: `Waited ${seconds}s, process still running` }) } };
          // Hermes' note says it is not an error; its advice (terminal background=true with
          // notify_on_complete) is the gateway's: nothing is delivered to the client on exit.
          const note = `Wait window of ${seconds}s elapsed — the process is still running. This is not an error. Uptime: ${uptime(p)}s. Poll again later or wait again; nothing is sent to the client when it exits (job_status shows its job).`;
          return { structured: { status: 'timeout', command, output: out(1000), process_running: true, timeout_note: clamped ? `${clamped.timeout_note}. ${note}` : note } };
        }
        case 'kill':
          if (p.exited) return { structured: { status: 'already_exited', command, ...ending(p), ...completion(p) } };
          p.terminationSource = 'process.kill';
          await registry.kill(p);
          return { structured: { status: 'killed', session_id: p.id, completion_reason: 'killed', termination_source: 'process.kill', ...completion(p) } };
        case 'write':
        case 'submit':
        case 'close':
        case 'resize':
          return { structured: sendInput(p, action, args) };
        default:
          throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Unknown process action: ${action}. Use: list, poll, log, wait, kill, write, submit, close, ${handoff ? 'handoff, ' : ''}resize`);
      }
    },
  };
}
