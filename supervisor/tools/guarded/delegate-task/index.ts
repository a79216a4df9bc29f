import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { withHermesArgumentRepair } from '../../../core/hermes-args.js';
import type { ToolDefinition } from '../../../core/tool-types.js';

// delegate_task — catalogued with Hermes' own parameter set (tools/delegate_tool.py:
// goal, context, tasks[{goal, context, acp_command, acp_args, role}], role,
// background, acp_command, acp_args, plus the handler-forwarded max_iterations), so agents that know
// Hermes find it, and every Hermes-shaped call gets DELEGATION_REQUIRES_JOB rather than a schema
// error; a field Hermes does not know is still INVALID_ARGUMENTS (additionalProperties: false).
// The ACP/background/max_iterations fields are accepted only so the call reaches the refusal: they
// are never read. Every call is refused before any model inference:
// a synchronous delegation would hold the MCP response open for a whole sub-agent run. Long work
// goes through a prepared background job (session_open -> job_prepare -> job_start -> job_status).
// Hermes' own native delegation inside an agent turn is unchanged. The handler touches nothing.
// Hermes' dispatch coercion applies first (supervisor/core/hermes-args.ts): `background: "true"` or
// `tasks` sent as JSON text reach the refusal, as they reach Hermes' handler.

const ROLE = { type: 'string', enum: ['leaf', 'orchestrator'], description: 'Hermes sub-agent role.' } as const;
const ACP_COMMAND = { type: 'string', maxLength: 4096, description: "Hermes' ACP subprocess transport (e.g. `copilot`). Accepted for compatibility; never run here." } as const;
const ACP_ARGS = {
  type: 'array',
  maxItems: 256,
  items: { type: 'string', maxLength: 4096 },
  description: "Arguments for Hermes' ACP transport (Hermes' default `--acp --stdio`). Accepted for compatibility; never used here.",
} as const;
/** Bounds stay (cheap validation) but far above Hermes' runtime fan-out cap (delegation.max_concurrent_children, default 3). */
const MAX_TASKS = 64;

const DELEGATION_REFUSAL =
  'delegate_task is not run through the gateway: a synchronous delegation would hold this MCP call open for a whole sub-agent run, so it is refused before any model inference and nothing was started. ' +
  'Run long work as a prepared background job instead: session_open (once), then job_prepare(command, workdir) — it runs nothing and returns job_id plus a one-time recovery_token to keep private — then job_start(job_id, recovery_token), and follow it with job_status. ' +
  "For agent work, prepare a job whose command runs Hermes itself (for example `hermes chat -q '<task>'`) in a workdir inside the allowed roots.";

export function delegateTaskTools(): ToolDefinition[] {
  const delegateTask: ToolDefinition = {
    name: 'delegate_task',
    description:
      "Hermes sub-agent delegation (goal/context, or a batch of tasks). Guarded: through this gateway every call is refused with DELEGATION_REQUIRES_JOB before any model inference, and nothing is started. Use a prepared background job instead: session_open, job_prepare (freezes a command, runs nothing), job_start, job_status. Hermes' own delegation inside its agent loop is unaffected. Hermes' full parameter set (including acp_command, acp_args, background, max_iterations) is accepted so any Hermes-shaped call gets that answer; none of it is run.",
    inputSchema: {
      type: 'object',
      properties: {
        goal: { type: 'string', maxLength: 20_000, description: 'A self-contained task for a single sub-agent.' },
        context: { type: 'string', maxLength: 50_000, description: 'Background information (paths, errors, constraints).' },
        tasks: {
          type: 'array',
          maxItems: MAX_TASKS,
          items: {
            type: 'object',
            properties: {
              goal: { type: 'string', maxLength: 20_000 },
              context: { type: 'string', maxLength: 50_000 },
              acp_command: ACP_COMMAND,
              acp_args: ACP_ARGS,
              role: ROLE,
            },
            required: ['goal'],
            additionalProperties: false,
          },
          description: 'A fan-out batch of sub-agent tasks.',
        },
        role: ROLE,
        background: { type: 'boolean', description: 'Deprecated in Hermes (top-level delegations always run in the background there). Accepted for compatibility; ignored.' },
        acp_command: ACP_COMMAND,
        acp_args: ACP_ARGS,
        max_iterations: { type: 'integer', description: "Hermes' per-child iteration budget (default 50). Accepted for compatibility; ignored." },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, title: 'Hermes delegation (refused: use background jobs)' },
    // Every call is refused: tool_search ranks it below the job tools that do the work.
    alwaysRefused: true,
    async handler() {
      throw new GatewayError(ErrorCode.DELEGATION_REQUIRES_JOB, DELEGATION_REFUSAL, {
        model_inference: false,
        use_instead: ['session_open', 'job_prepare', 'job_start', 'job_status'],
      });
    },
  };
  return [withHermesArgumentRepair(delegateTask)];
}
