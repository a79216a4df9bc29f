import { ErrorCode, GatewayError } from '../../shared/errors.js';
import type { ToolDefinition } from '../../shared/tool-types.js';

// delegate_task — catalogued with its guarded schema (Hermes' tools/delegate_tool.py parameters
// minus the ACP subprocess transport and the deprecated `background` flag), so agents that know
// Hermes find it and learn what to do instead. Every call is refused before any model inference:
// a synchronous delegation would hold the MCP response open for a whole sub-agent run. Long work
// goes through a prepared background job (session_open -> job_prepare -> job_start -> job_status).
// Hermes' own native delegation inside an agent turn is unchanged. The handler touches nothing.

const ROLE = { type: 'string', enum: ['leaf', 'orchestrator'], description: 'Hermes sub-agent role.' } as const;

export const DELEGATION_REFUSAL =
  'delegate_task is not run through the gateway: a synchronous delegation would hold this MCP call open for a whole sub-agent run, so it is refused before any model inference and nothing was started. ' +
  'Run long work as a prepared background job instead: session_open (once), then job_prepare(command, workdir) — it runs nothing and returns job_id plus a one-time recovery_token to keep private — then job_start(job_id, recovery_token), and follow it with job_status. ' +
  "For agent work, prepare a job whose command runs Hermes itself (for example `hermes chat -q '<task>'`) in a workdir inside the allowed roots.";

export function delegateTaskTools(): ToolDefinition[] {
  const delegateTask: ToolDefinition = {
    name: 'delegate_task',
    description:
      "Hermes sub-agent delegation (goal/context, or a batch of tasks). Guarded: through this gateway every call is refused with DELEGATION_REQUIRES_JOB before any model inference, and nothing is started. Use a prepared background job instead: session_open, job_prepare (freezes a command, runs nothing), job_start, job_status. Hermes' own delegation inside its agent loop is unaffected.",
    inputSchema: {
      type: 'object',
      properties: {
        goal: { type: 'string', maxLength: 20_000, description: 'A self-contained task for a single sub-agent.' },
        context: { type: 'string', maxLength: 50_000, description: 'Background information (paths, errors, constraints).' },
        tasks: {
          type: 'array',
          maxItems: 16,
          items: {
            type: 'object',
            properties: {
              goal: { type: 'string', maxLength: 20_000 },
              context: { type: 'string', maxLength: 50_000 },
              role: ROLE,
            },
            required: ['goal'],
            additionalProperties: false,
          },
          description: 'A fan-out batch of sub-agent tasks.',
        },
        role: ROLE,
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, title: 'Hermes delegation (refused: use background jobs)' },
    async handler() {
      throw new GatewayError(ErrorCode.DELEGATION_REQUIRES_JOB, DELEGATION_REFUSAL, {
        model_inference: false,
        use_instead: ['session_open', 'job_prepare', 'job_start', 'job_status'],
      });
    },
  };
  return [delegateTask];
}
