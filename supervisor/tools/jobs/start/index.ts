import type { ToolDefinition } from '../../../core/tool-types.js';
import { checkCommand, commandContext } from '../../command-guards/index.js';
import { openStore, refuseGuarded, type JobToolContext } from '../access/index.js';
import { JOB_ID, jobOutcome, TOKEN } from '../receipt/index.js';
import type { JobRow } from '../store/index.js';

// job_start: starts exactly the request job_prepare froze, once; admission is atomic and a refusal
// runs nothing. It needs an interactive session, which the job is then counted against.

export function jobStartTool(ctx: JobToolContext): ToolDefinition {
  const { limits } = ctx;
  return {
    name: 'job_start',
    description:
      `Start exactly the request job_prepare froze (no command or workdir here). Admission is atomic: at most ${limits.maxActiveJobs} active jobs on the host, ${limits.maxActiveJobsPerSession} per session, one per workspace (same or nested directories), host resource limits; a full quota or busy workspace is an error, never a queue. If the answer is lost, call job_status with the same credential — repeating job_start never relaunches. Needs session_token.`,
    inputSchema: { type: 'object', properties: { job_id: JOB_ID, recovery_token: TOKEN }, required: ['job_id', 'recovery_token'], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: true },
    requiresOwner: true,
    holdsLease: true,
    async handler(args, call) {
      const { runner } = openStore(ctx);
      // Judged again at the start: the operator's approvals.deny rules may have changed since the
      // job was prepared (and a job prepared by an earlier gateway met an earlier guard).
      const guardStart = (job: JobRow) => refuseGuarded(checkCommand(job.command ?? '', commandContext(ctx.guard, job.workdir)), 'the job was not started and stays prepared');
      return jobOutcome(await runner.start(args.job_id as string, args.recovery_token as string, call.owner.id, guardStart));
    },
  };
}
