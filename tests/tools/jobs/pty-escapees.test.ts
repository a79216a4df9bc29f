import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ESCAPEE_COUNT, escapeeCommand, killSurvivors, newMarker, waitForNoSurvivors, waitForSurvivors } from '../../helpers/escapees.js';
import { startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn } from '../../helpers/jobs.js';
import { waitFor } from '../../helpers/wait.js';

// A PTY job is cleaned up like any job: its terminal's session leader is only one of the processes
// it starts, and escapees that setsid away from the terminal (and double-fork) are still in the
// worker's PID namespace, so nothing outlives a cancel, max_runtime, the command's own end, or the
// gateway (its hard kill is in pty-gateway-kill.test.ts).

const markers: string[] = [];
after(() => {
  for (const m of markers) killSurvivors(m);
});

function marker(): string {
  const m = newMarker();
  markers.push(m);
  return m;
}

test('job_cancel of a PTY job that forked setsid daemons leaves nothing', async () => {
  const gw = await startTestGateway();
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const m = marker();
    const job = await prepareJob(client, token, escapeeCommand(m), workdirIn(gw.home, 'work', 'cancel'), { pty: true });
    await viaBridge(client, 'job_start', job, token);
    assert.ok((await waitForSurvivors(m, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'the escapees are up');
    await waitFor(async () => /ready/.test((await viaBridge(client, 'job_status', job)).data.output_tail as string), 10_000, 'ready on the terminal');
    const cancelled = await viaBridge(client, 'job_cancel', job);
    assert.equal(cancelled.data.state, 'cancelled', JSON.stringify(cancelled.data));
    assert.deepEqual(await waitForNoSurvivors(m), []);
    await client.close();
  } finally {
    await gw.close();
  }
});

test('a PTY job whose command ends leaves no daemon behind; neither does a gateway shutdown mid-job', async () => {
  const gw = await startTestGateway();
  const running = marker();
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const ended = marker();
    const short = await prepareJob(client, token, escapeeCommand(ended, 0), workdirIn(gw.home, 'work', 'ends'), { pty: true });
    await viaBridge(client, 'job_start', short, token);
    const final = await waitForFinal(client, short);
    assert.equal(final.state, 'succeeded', JSON.stringify(final));
    assert.match(final.output_tail as string, /ready\n/);
    assert.deepEqual(await waitForNoSurvivors(ended), []);

    const long = await prepareJob(client, token, escapeeCommand(running), workdirIn(gw.home, 'work', 'shutdown'), { pty: true });
    await viaBridge(client, 'job_start', long, token);
    assert.ok((await waitForSurvivors(running, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'the escapees are up');
    await client.close();
  } finally {
    await gw.close();
  }
  assert.deepEqual(await waitForNoSurvivors(running), []);
});

test('a PTY job that overruns max_runtime is timed out and leaves nothing', async () => {
  const gw = await startTestGateway({ limits: { jobKillGraceSeconds: 1 } });
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const m = marker();
    const job = await prepareJob(client, token, escapeeCommand(m), workdirIn(gw.home, 'work', 'timeout'), { pty: true, max_runtime: 2 });
    await viaBridge(client, 'job_start', job, token);
    assert.ok((await waitForSurvivors(m, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'the escapees are up');
    const final = await waitForFinal(client, job);
    assert.equal(final.state, 'timed_out', JSON.stringify(final));
    assert.equal(final.termination_reason, 'max_runtime_exceeded');
    assert.deepEqual(await waitForNoSurvivors(m), []);
    await client.close();
  } finally {
    await gw.close();
  }
});
