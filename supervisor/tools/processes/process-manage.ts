import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { stripAnsi } from '../../../shared/output-cap.js';
import { commandOutput } from '../../core/result.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import { INPUT_ACTIONS, type InputAction, inputProperties, sendInput, visibleOutput } from './process-terminal.js';
import type { ProcessRegistry, TrackedProcess } from './registry.js';

// process_manage (Hermes' `process` tool): a session's background processes, by their proc_ id.
// The reading actions (list, poll, log, wait) and kill are here; the input actions (write, submit,
// close, resize) are process-terminal.ts, shared with job_input. Their results are redacted by the
// pipeline, once, as Hermes' _redact_process_result does (the `command-output` mode: output as
// redact_terminal_output shows it for the process's command, the command as code).

/** Output as Hermes' process tool shows it: ANSI stripped, then (the pipeline) redacted as the command's output. */
const clean = (text: string, command: string) => commandOutput(stripAnsi(text), command);

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

export function processManageTool(registry: ProcessRegistry, runtime: WorkerRuntime): ToolDefinition {
  const { limits } = runtime.config;
  const maxWait = limits.processWaitMaxSeconds;
  return {
    name: 'process_manage',
    description: `Manage this session's background processes (started by jobs): list, poll, log, wait (at most ${maxWait} s per call), kill, write/submit stdin, close stdin; for a job prepared with pty: true, write/submit go to its terminal (submit presses Enter), close sends ^D and resize changes its window (cols/rows). Needs the session (session_token or MCP session) that owns them.`,
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['list', 'poll', 'log', 'wait', 'kill', ...INPUT_ACTIONS] },
        session_id: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description:
            "Which background process: its id `proc_…` (Hermes' name for the field), as action=list shows it for the processes this session's jobs started. Required for every action but list. Not the session_token, which goes in tool_call.session_token.",
        },
        timeout: { type: 'integer', minimum: 1 },
        offset: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', minimum: 1 },
        ...inputProperties(limits),
      },
      required: ['action'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: false },
    requiresOwner: true,
    redaction: 'command-output',
    async handler(args, ctx) {
      const action = args.action as 'list' | 'poll' | 'log' | 'wait' | 'kill' | InputAction;
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
              output_preview: clean(visibleOutput(p).slice(-200), p.command),
              ...(p.exited ? { exit_code: p.exitCode ?? null } : {}),
            })),
          },
        };
      }
      if (typeof args.session_id !== 'string') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `session_id is required for ${action}`);
      const p = registry.get(ctx.owner.id, args.session_id);
      const { command } = p;
      const out = (chars: number) => clean(visibleOutput(p).slice(-chars), p.command);
      switch (action) {
        case 'poll':
          return { structured: { session_id: p.id, command, status: status(p), pid: p.pid ?? null, tty: p.terminal !== undefined, uptime_seconds: uptime(p), output_preview: out(1000), ...(p.exited ? ending(p) : {}) } };
        case 'log': {
          const lines = splitLines(stripAnsi(visibleOutput(p)));
          const limit = (args.limit as number | undefined) ?? 200;
          const offset = (args.offset as number | undefined) ?? 0;
          const shown = offset === 0 ? lines.slice(-limit) : lines.slice(offset, offset + limit);
          return { structured: { session_id: p.id, command, status: status(p), output: clean(shown.join('\n'), p.command), total_lines: lines.length, showing: `${shown.length} lines` } };
        }
        case 'wait': {
          const requested = args.timeout as number | undefined;
          const seconds = requested !== undefined && requested <= maxWait ? requested : maxWait;
          // Hermes' note when the request was over the limit; a plain timeout says how long it waited.
          const clamped = requested !== undefined && requested > maxWait ? { timeout_note: `Requested wait of ${requested}s was clamped to configured limit of ${maxWait}s` } : undefined;
          const exited = await registry.wait(p, seconds * 1000, ctx.signal);
          return {
            structured: exited
              ? { status: 'exited', command, ...ending(p), output: out(2000), ...clamped }
              : { status: 'timeout', command, output: out(1000), ...(clamped ?? { timeout_note: `Waited ${seconds}s, process still running` }) },
          };
        }
        case 'kill':
          if (p.exited) return { structured: { status: 'already_exited', command, ...ending(p), output: out(2000) } };
          p.terminationSource = 'process.kill';
          await registry.kill(p);
          return { structured: { status: 'killed', session_id: p.id, completion_reason: 'killed', termination_source: 'process.kill', output: out(2000) } };
        case 'write':
        case 'submit':
        case 'close':
        case 'resize':
          return { structured: sendInput(p, action, args) };
        default:
          throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `unknown action ${action}`);
      }
    },
  };
}
