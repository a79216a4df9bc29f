import { ErrorCode, GatewayError } from '../../shared/errors.js';
import { stripAnsi } from '../../shared/output-cap.js';
import { redact } from '../../shared/redact.js';
import type { ToolDefinition } from '../tool-types.js';
import type { WorkerRuntime } from '../spawning/worker-runtime.js';
import { INPUT_ACTIONS, type InputAction, inputProperties, sendInput, visibleOutput } from './process-terminal.js';
import type { ProcessRegistry, TrackedProcess } from './processes.js';

// process_manage (Hermes' `process` tool): a session's background processes, by their proc_ id.
// The reading actions (list, poll, log, wait) and kill are here; the input actions (write, submit,
// close, resize) are process-terminal.ts, shared with job_input.

const clean = (text: string) => redact(stripAnsi(text), { codeFile: true });

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
    async handler(args, ctx) {
      const action = args.action as 'list' | 'poll' | 'log' | 'wait' | 'kill' | InputAction;
      if (action === 'list') {
        return {
          structured: {
            processes: registry.list(ctx.owner.id).map((p) => ({
              session_id: p.id,
              command: clean(p.command.slice(0, 200)),
              cwd: p.cwd,
              pid: p.pid ?? null,
              started_at: new Date(p.startedAt).toISOString(),
              uptime_seconds: uptime(p),
              status: status(p),
              tty: p.terminal !== undefined,
              ...(p.jobId ? { job_id: p.jobId } : {}),
              output_preview: clean(visibleOutput(p).slice(-200)),
              ...(p.exited ? { exit_code: p.exitCode ?? null } : {}),
            })),
          },
        };
      }
      if (typeof args.session_id !== 'string') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `process_manage ${action} needs session_id`);
      const p = registry.get(ctx.owner.id, args.session_id);
      const base = { session_id: p.id, command: clean(p.command) };
      switch (action) {
        case 'poll':
          return { structured: { ...base, status: status(p), pid: p.pid ?? null, tty: p.terminal !== undefined, uptime_seconds: uptime(p), output_preview: clean(visibleOutput(p).slice(-1000)), ...(p.exited ? { exit_code: p.exitCode ?? null, completion_reason: p.completionReason } : {}) } };
        case 'log': {
          const lines = visibleOutput(p).split('\n');
          if (lines[lines.length - 1] === '') lines.pop();
          const limit = (args.limit as number | undefined) ?? 200;
          const offset = (args.offset as number | undefined) ?? 0;
          const shown = offset === 0 ? lines.slice(-limit) : lines.slice(offset, offset + limit);
          return { structured: { ...base, status: status(p), output: clean(shown.join('\n')), total_lines: lines.length, showing: `${shown.length} lines` } };
        }
        case 'wait': {
          const requested = (args.timeout as number | undefined) ?? maxWait;
          const seconds = Math.min(requested, maxWait);
          const exited = await registry.wait(p, seconds * 1000, ctx.signal);
          return {
            structured: exited
              ? { ...base, status: 'exited', exit_code: p.exitCode ?? null, completion_reason: p.completionReason, output: clean(visibleOutput(p).slice(-2000)) }
              : {
                  ...base,
                  status: 'timeout',
                  output: clean(visibleOutput(p).slice(-1000)),
                  ...(requested > maxWait ? { timeout_note: `waits are capped at ${maxWait} s per call; call wait again` } : {}),
                },
          };
        }
        case 'kill':
          if (p.exited) return { structured: { ...base, status: 'already_exited', exit_code: p.exitCode ?? null } };
          await registry.kill(p);
          return { structured: { status: 'killed', session_id: p.id, completion_reason: 'killed', termination_source: 'process.kill' } };
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
