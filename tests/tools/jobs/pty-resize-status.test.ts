import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn } from '../../helpers/jobs.js';
import { waitFor } from '../../helpers/wait.js';

// job_status reports a PTY job's window as it is now: after a resize, the new size (the one the
// program sees), kept in the receipt after the job ends.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw.close();
});

test('job_status terminal follows a resize', async () => {
  const { client, token } = await openSession(gw.mcpUrl);
  const job = await prepareJob(client, token, 'stty size; read -r _; stty size', workdirIn(gw.home, 'work', 'resized'), { pty: true, cols: 90, rows: 30 });
  await viaBridge(client, 'job_start', job, token);
  await waitFor(async () => /30 90/.test((await viaBridge(client, 'job_status', job)).data.output_tail as string), 10_000, 'the initial size');
  assert.deepEqual((await viaBridge(client, 'job_status', job)).data.terminal, { cols: 90, rows: 30 });
  const resized = await viaBridge(client, 'job_input', { ...job, action: 'resize', cols: 100, rows: 25 });
  assert.equal(resized.isError, false, JSON.stringify(resized.data));
  assert.deepEqual((await viaBridge(client, 'job_status', job)).data.terminal, { cols: 100, rows: 25 });
  await viaBridge(client, 'job_input', { ...job, action: 'submit', data: '' });
  const final = await waitForFinal(client, job);
  assert.match(final.output_tail as string, /30 90\n\n25 100\n$/);
  assert.deepEqual(final.terminal, { cols: 100, rows: 25 });
  await client.close();
});
