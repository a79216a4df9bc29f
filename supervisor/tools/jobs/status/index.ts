import type { ToolDefinition } from '../../../core/tool-types.js';
import { openStore, type JobToolContext } from '../access/index.js';
import { JOB_ID, jobOutcome, TOKEN } from '../receipt/index.js';

// job_status: a job's receipt, authorized by its credential alone, so recovery works from any new
// connection even after the session that started the job has expired.

export function jobStatusTool(ctx: JobToolContext): ToolDefinition {
  const { limits } = ctx;
  return {
    name: 'job_status',
    description: `A job's state and receipt (exit code, signal, termination reason, timestamps, redacted output tail). Authorized by the job credential alone. wait_seconds (at most ${limits.jobStatusMaxWaitSeconds}) waits for a state change instead of polling in a tight loop. States: prepared, starting, running, succeeded, failed, cancelled, timed_out, expired, unknown.`,
    inputSchema: {
      type: 'object',
      properties: { job_id: JOB_ID, recovery_token: TOKEN, wait_seconds: { type: 'integer', minimum: 0, maximum: limits.jobStatusMaxWaitSeconds } },
      required: ['job_id', 'recovery_token'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
    credentialAuthorized: true,
    async handler(args, call) {
      const { runner } = openStore(ctx);
      return jobOutcome(await runner.status(args.job_id as string, args.recovery_token as string, (args.wait_seconds as number | undefined) ?? 0, call.signal));
    },
  };
}
