import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { stripAnsi } from '../../../../shared/output-cap.js';
import { hermesArgumentRepair } from '../../../core/hermes-args.js';
import { commandOutput } from '../../../core/result.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import type { WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';
import { killAnswer, listAnswer, logAnswer, pollAnswer, waitAnswer, type ProcessView } from './actions.js';
import { type InputAction, inputProperties, sendInput } from './pty-input.js';
import type { ProcessRegistry } from './registry.js';

export { INPUT_ACTIONS, inputProperties, sendInput, terminalSizeProperties, type InputAction } from './pty-input.js';
export { ProcessRegistry, type TrackedProcess } from './registry.js';

// process_manage (Hermes' `process` tool): a session's background processes, by their proc_ id.
// The reading actions (list, poll, log, wait) and kill are actions.ts; the input actions (write,
// submit, close, resize) are pty-input.ts, shared with job_input (this folder's index exports them). Their results are redacted by the
// pipeline, once, as Hermes' _redact_process_result does (the `command-output` mode: output as
// redact_terminal_output shows it for the process's command, the command as code).
// What it answers follows the Hermes the gateway fronts (HermesRelease): 0.19's `process`, or
// 0.22.2's process_manage (handoff, ids by prefix, log offset 0 = the head, output_cut and
// process_running, the newer list fields).

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
  const maxWait = limits.processWaitMaxSeconds;
  const handoff = release.has('process-manage-schema');
  const view: ProcessView = {
    clean: (text, p) => commandOutput(stripAnsi(text), p.command, { hermesHome, cwd: p.cwd }),
    maxWait,
    listFields: release.has('process-list-fields'),
    waitFields: release.has('process-wait-fields'),
    offsetHead: release.has('process-log-offset-head'),
  };
  const inputSchema = processManageSchema(release, limits);
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
      if (action === 'list') return { structured: listAnswer(registry.list(ctx.owner.id), view) };
      if (typeof args.session_id !== 'string') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `session_id is required for ${action}`);
      const p = registry.get(ctx.owner.id, args.session_id);
      switch (action) {
        case 'poll':
          return { structured: pollAnswer(p, view) };
        case 'log':
          return { structured: logAnswer(p, args.offset as number | undefined, args.limit as number | undefined, view) };
        case 'wait':
          return { structured: await waitAnswer(registry, p, args.timeout as number | undefined, ctx.signal, view) };
        case 'kill':
          return { structured: await killAnswer(registry, p, view) };
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
