import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn, type JobCredential } from '../../helpers/jobs.js';
import { waitFor } from '../../helpers/wait.js';

// Answering a PTY job's questions through process_manage: the prompt is readable before it is
// answered (it is still on the screen, not a finished line), `submit` presses Enter, `close` is
// ^D, and what is written is never logged.

describe('jobs: pty input', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
  });

  async function started(command: string, name: string) {
    const { client, token } = await openSession(gw.mcpUrl);
    const job = await prepareJob(client, token, command, workdirIn(gw.home, 'work', name), { pty: true });
    await viaBridge(client, 'job_start', job, token);
    const procs = (await viaBridge(client, 'process_manage', { action: 'list' }, token)).data.processes as Array<Record<string, unknown>>;
    const id = procs.find((p) => p.job_id === job.job_id)?.session_id as string;
    assert.ok(id, JSON.stringify(procs));
    const manage = (action: string, extra: Record<string, unknown> = {}) => viaBridge(client, 'process_manage', { action, session_id: id, ...extra }, token);
    return { client, job, manage };
  }

  const statusTail = async (client: Awaited<ReturnType<typeof started>>['client'], job: JobCredential) => (await viaBridge(client, 'job_status', job)).data.output_tail as string;

  test('a prompt shows before it is answered; submit answers it', async () => {
    const answer = 'zed-' + Math.random().toString(36).slice(2, 10);
    const { client, job, manage } = await started(`read -p "name? " n; echo "hi $n"`, 'prompt');
    await waitFor(async () => /name\?/.test((await manage('poll')).data.output_preview as string), 10_000, 'the prompt in poll');
    assert.match(await statusTail(client, job), /^name\?/, 'the receipt holds the prompt as it is on the screen');
    const submitted = await manage('submit', { data: answer });
    assert.deepEqual(submitted.data, { status: 'ok', bytes_written: answer.length + 1 });
    const final = await waitForFinal(client, job);
    assert.equal(final.state, 'succeeded');
    // The terminal echoes what is typed, as a terminal does; the program then answers.
    assert.equal(final.output_tail, `name? ${answer}\nhi ${answer}\n`);
    assert.ok(!gw.rawLog().includes(answer), 'what was written is not in the gateway log');
    await client.close();
  });

  test('close sends end-of-input (^D): a reader at the start of a line sees EOF', async () => {
    const { client, job, manage } = await started(`cat; echo "cat saw eof"`, 'eof');
    await manage('submit', { data: 'line one' });
    await waitFor(async () => /line one/.test((await manage('log')).data.output as string), 10_000, 'the echoed line');
    const closed = await manage('close');
    assert.deepEqual(closed.data, { status: 'ok', message: 'EOF sent' });
    const final = await waitForFinal(client, job);
    assert.equal(final.state, 'succeeded', JSON.stringify(final));
    assert.match(final.output_tail as string, /cat saw eof\n$/);
    await client.close();
  });
});
