import type { ToolDefinition } from '../../../core/tool-types.js';
import { INPUT_ACTIONS, inputProperties, sendInput, type InputAction } from '../../processes/process-manage/index.js';
import { openStore, type JobToolContext } from '../access/index.js';
import { JOB_ID, TOKEN } from '../receipt/index.js';

// job_input: a tool of its own rather than a credential mode of process_manage. process_manage is
// owner-scoped (a session's processes, by proc_ id) and needs a live session; this one is
// authorized like job_status, by the credential alone, so a PTY job's prompt can be answered from
// any new connection after the starting session is gone. It shares process_manage's input
// actions (sendInput).

export function jobInputTool(ctx: JobToolContext): ToolDefinition {
  return {
    name: 'job_input',
    description:
      'Send input to a running job by its credential, from any connection (the session that started it may be gone): write or submit (submit presses Enter) text to its stdin or terminal, close (end of input; ^D on a terminal), resize a PTY job\'s window (cols/rows). What is written is never logged. Read the answer with job_status.',
    inputSchema: {
      type: 'object',
      properties: { job_id: JOB_ID, recovery_token: TOKEN, action: { type: 'string', enum: [...INPUT_ACTIONS] }, ...inputProperties(ctx.limits) },
      required: ['job_id', 'recovery_token', 'action'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: false },
    credentialAuthorized: true,
    async handler(args) {
      const { runner } = openStore(ctx);
      const proc = runner.runningProcess(args.job_id as string, args.recovery_token as string);
      return { structured: { job_id: args.job_id, ...sendInput(proc, args.action as InputAction, args) } };
    },
  };
}
