import { run, toolCall } from './connect.js';

// A job: job_prepare freezes the command (nothing runs; keep the recovery token private), job_start
// runs it, job_status follows it (waiting up to wait_seconds for a change) until it ends. workdir `.`
// is the session's current directory, as for terminal: a new session's is the project root
// (EXAMPLE_WORKDIR overrides it; a relative one resolves there too, and must stay inside the roots).
const ENDED = ['succeeded', 'failed', 'cancelled', 'timed_out', 'expired', 'unknown'];

run(async (client) => {
  const { session_token: token } = await toolCall(client, 'session_open');
  const workdir = process.env.EXAMPLE_WORKDIR ?? '.';
  const prepared = await toolCall(client, 'job_prepare', { command: process.env.EXAMPLE_COMMAND ?? 'python3 -m unittest -v', workdir }, String(token));
  const job = { job_id: String(prepared.job_id), recovery_token: String(prepared.recovery_token) };
  console.log(`prepared ${job.job_id} (workdir ${workdir})`);
  let status = await toolCall(client, 'job_start', job, String(token));
  console.log(`started in ${String(status.workdir)}: ${String(status.state)}`);
  while (!ENDED.includes(String(status.state))) status = await toolCall(client, 'job_status', { ...job, wait_seconds: 10 });
  console.log(`${String(status.state)} (exit ${String(status.exit_code)}); output:`);
  console.log(String(status.output_tail));
  if (status.state !== 'succeeded') process.exitCode = 1;
});
