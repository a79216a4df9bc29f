import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn } from '../../helpers/jobs.js';
import { waitFor } from '../../helpers/wait.js';

// A PTY job's prompt outlives the session that started it: job_input answers it with the job's
// recovery token alone, from a connection that never had a session. A wrong token (or id) gets
// job_status's JOB_NOT_FOUND, and nothing reaches the terminal.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw.close();
});

test('job_input answers a PTY prompt after the starting session closed; a wrong credential writes nothing', async () => {
  const { client: starter, token } = await openSession(gw.mcpUrl);
  const job = await prepareJob(starter, token, `read -p "name? " n; echo "hi $n"`, workdirIn(gw.home, 'work', 'recover'), { pty: true });
  await viaBridge(starter, 'job_start', job, token);
  await waitFor(async () => /name\?/.test((await viaBridge(starter, 'job_status', job)).data.output_tail as string), 10_000, 'the prompt');
  assert.equal((await viaBridge(starter, 'session_close', {}, token)).isError, false);
  await starter.close();

  const stranger = await connect(gw.mcpUrl, 'modern');
  const wrongToken = await viaBridge(stranger, 'job_input', { job_id: job.job_id, recovery_token: 'hjr_' + 'x'.repeat(43), action: 'submit', data: 'intruder' });
  const wrongId = await viaBridge(stranger, 'job_input', { job_id: 'job_' + '0'.repeat(24), recovery_token: job.recovery_token, action: 'submit', data: 'intruder' });
  assert.equal(wrongToken.data.error, 'JOB_NOT_FOUND', JSON.stringify(wrongToken.data));
  assert.equal(wrongId.data.error, 'JOB_NOT_FOUND', JSON.stringify(wrongId.data));
  const answered = await viaBridge(stranger, 'job_input', { ...job, action: 'submit', data: 'zed' });
  assert.deepEqual(answered.data, { job_id: job.job_id, status: 'ok', bytes_written: 4 });
  const final = await waitForFinal(stranger, job);
  assert.equal(final.state, 'succeeded', JSON.stringify(final));
  // The first line typed into the prompt is the only one: the refused calls wrote nothing.
  assert.equal(final.output_tail, 'name? zed\nhi zed\n');
  const late = await viaBridge(stranger, 'job_input', { ...job, action: 'write', data: 'x' });
  assert.equal(late.data.error, 'PROCESS_NOT_RUNNING', JSON.stringify(late.data));
  await stranger.close();
});
