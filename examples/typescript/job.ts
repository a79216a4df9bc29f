import { run, toolCall } from './connect.js';

// A job: job_prepare freezes the command (nothing runs; keep the recovery token private), job_start
// runs it, job_status follows it (waiting up to wait_seconds for a change) until it ends. workdir is
// an absolute directory inside the roots: here the project root the gateway's /readyz reports
// (EXAMPLE_WORKDIR overrides it).
const ENDED = ['succeeded', 'failed', 'cancelled', 'timed_out', 'expired', 'unknown'];

async function projectRoot(mcpUrl: string): Promise<string> {
  const readyz = (await (await fetch(new URL('/readyz', mcpUrl))).json()) as { components?: { roots?: { details?: { terminal_cwd?: string } } } };
  const root = readyz.components?.roots?.details?.terminal_cwd;
  if (!root) throw new Error('the gateway reports no project root in /readyz; set EXAMPLE_WORKDIR');
  return root;
}

run(async (client, { url }) => {
  const { session_token: token } = await toolCall(client, 'session_open');
  const workdir = process.env.EXAMPLE_WORKDIR ?? (await projectRoot(url));
  const prepared = await toolCall(client, 'job_prepare', { command: process.env.EXAMPLE_COMMAND ?? 'python3 -m unittest -v', workdir }, String(token));
  const job = { job_id: String(prepared.job_id), recovery_token: String(prepared.recovery_token) };
  console.log(`prepared ${job.job_id} in ${workdir}`);
  let status = await toolCall(client, 'job_start', job, String(token));
  console.log(`started: ${String(status.state)}`);
  while (!ENDED.includes(String(status.state))) status = await toolCall(client, 'job_status', { ...job, wait_seconds: 10 });
  console.log(`${String(status.state)} (exit ${String(status.exit_code)}); output:`);
  console.log(String(status.output_tail));
  if (status.state !== 'succeeded') process.exitCode = 1;
});
