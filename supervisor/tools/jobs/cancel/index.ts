import type { ToolDefinition } from '../../../core/tool-types.js';
import { openStore, type JobToolContext } from '../access/index.js';
import { JOB_ID, jobOutcome, TOKEN } from '../receipt/index.js';

// job_cancel: stops a job by its credential alone (any connection, any or no session).

export function jobCancelTool(ctx: JobToolContext): ToolDefinition {
  return {
    name: 'job_cancel',
    description:
      'Cancel a job by its credential: a prepared job never runs; a running one gets SIGTERM, then SIGKILL of its whole process tree after the grace period. An `unknown` job is released only after verifying no process of it remains (it becomes cancelled, never succeeded).',
    inputSchema: { type: 'object', properties: { job_id: JOB_ID, recovery_token: TOKEN }, required: ['job_id', 'recovery_token'], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: true },
    credentialAuthorized: true,
    async handler(args) {
      const { runner } = openStore(ctx);
      return jobOutcome(await runner.cancel(args.job_id as string, args.recovery_token as string));
    },
  };
}
