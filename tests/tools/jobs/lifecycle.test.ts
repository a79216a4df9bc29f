import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { advanceAndMaintain, testClock } from '../../helpers/clock.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn, type JobCredential } from '../../helpers/jobs.js';
import { waitFor, within } from '../../helpers/wait.js';

// The job protocol end to end over real MCP: prepare (runs nothing) -> start -> status with a wait
// -> receipt; duplicates, cancellation, deadlines and the credential rules.

describe('jobs: prepare, start, status, cancel', () => {
  let gw: TestGateway;
  // Deadlines and the KILL after the grace period follow this clock; the long grace keeps the real
  // maintenance timer from escalating before the test moves the clock past it.
  const clock = testClock();
  const graceSeconds = 30;
  before(async () => {
    gw = await startTestGateway({ now: clock.now, limits: { jobKillGraceSeconds: graceSeconds } });
  });
  after(async () => {
    await gw.close();
  });

  const session = () => openSession(gw.mcpUrl);
  const workdir = (name: string) => workdirIn(gw.home, 'work', name);
  const waitFinal = waitForFinal;
  /** job_status (which stores the output so far) until the output tail matches `pattern`. */
  const waitForOutput = (client: Awaited<ReturnType<typeof session>>['client'], job: JobCredential, pattern: RegExp) =>
    waitFor(async () => pattern.test((await viaBridge(client, 'job_status', job)).data.output_tail as string), 10_000, `job output ${pattern}`);

  test('prepare runs nothing; start runs exactly the frozen request; the receipt keeps exit code and output', async () => {
    const { client, token } = await session();
    const dir = workdir('a');
    const marker = join(dir, 'ran');
    const prep = await viaBridge(client, 'job_prepare', { command: `touch ${marker}; echo hello-job; pwd`, workdir: dir }, token);
    assert.equal(prep.isError, false, JSON.stringify(prep.data));
    assert.match(prep.data.job_id as string, /^job_[0-9a-f]{24}$/);
    assert.match(prep.data.recovery_token as string, /^hjr_/);
    assert.equal(prep.data.state, 'prepared');
    await new Promise((r) => setTimeout(r, 300));
    assert.throws(() => statSync(marker), 'nothing ran during preparation');
    const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    const started = await viaBridge(client, 'job_start', job, token);
    assert.equal(started.isError, false, JSON.stringify(started.data));
    assert.ok(['running', 'succeeded'].includes(started.data.state as string), String(started.data.state));
    const final = await waitFinal(client, job);
    assert.equal(final.state, 'succeeded');
    assert.equal(final.exit_code, 0);
    assert.match(final.output_tail as string, new RegExp(`hello-job\\n${dir}\\n`));
    assert.ok(statSync(marker).isFile());
    const again = await viaBridge(client, 'job_start', job, token);
    assert.equal(again.data.state, 'succeeded', 'an authorized repeat start never relaunches');
    await client.close();
  });

  test('a failing command is failed with its exit code', async () => {
    const { client, token } = await session();
    const prep = await viaBridge(client, 'job_prepare', { command: 'echo oops; exit 3', workdir: workdir('b') }, token);
    const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    await viaBridge(client, 'job_start', job, token);
    const final = await waitFinal(client, job);
    assert.equal(final.state, 'failed');
    assert.equal(final.exit_code, 3);
    await client.close();
  });

  test('cancel: TERM reaches the command; the job is cancelled and its workspace free again', async () => {
    const { client, token } = await session();
    const dir = workdir('c');
    const prep = await viaBridge(client, 'job_prepare', { command: `trap 'echo got-term; exit 143' TERM; echo up; while true; do sleep 0.1; done`, workdir: dir }, token);
    const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    await viaBridge(client, 'job_start', job, token);
    // On a loaded machine a cancel right after the start can reach bash before its trap is set.
    await waitForOutput(client, job, /up/);
    const cancelled = await viaBridge(client, 'job_cancel', job);
    assert.equal(cancelled.data.state, 'cancelled', JSON.stringify(cancelled.data));
    assert.equal(cancelled.data.termination_reason, 'cancelled_by_request');
    assert.match(cancelled.data.output_tail as string, /got-term/);
    const next = await viaBridge(client, 'job_prepare', { command: 'true', workdir: dir }, token);
    const started = await viaBridge(client, 'job_start', { job_id: next.data.job_id, recovery_token: next.data.recovery_token }, token);
    assert.equal(started.isError, false, JSON.stringify(started.data));
    await client.close();
  });

  test('max_runtime: the maintenance loop times the job out (TERM, then KILL when ignored)', async () => {
    const { client, token } = await session();
    const prep = await viaBridge(client, 'job_prepare', { command: `trap 'echo term-ignored' TERM; echo up; while true; do sleep 0.1; done`, workdir: workdir('d'), max_runtime: 1 }, token);
    const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    await viaBridge(client, 'job_start', job, token);
    await waitForOutput(client, job, /up/); // the TERM trap is in place
    advanceAndMaintain(gw, clock, 1000); // max_runtime is over: TERM
    await waitForOutput(client, job, /term-ignored/);
    assert.equal((await viaBridge(client, 'job_status', job)).data.state, 'running', 'TERM ignored, no KILL before the grace period ends');
    advanceAndMaintain(gw, clock, graceSeconds * 1000); // the grace period is over: KILL
    // Bounded well below the real 30 s: the KILL follows the clock, not the wall.
    const final = await within(waitFinal(client, job), 10_000, 'the KILL once the grace period is over');
    assert.equal(final.state, 'timed_out');
    assert.equal(final.termination_reason, 'max_runtime_exceeded');
    await client.close();
  });
  test('status and cancel synchronize per job: a long status wait on one job never delays another job', async () => {
    const { client, token } = await session();
    const slow = await prepareJob(client, token, 'sleep 30', workdir('sync-a'));
    const other = await prepareJob(client, token, 'sleep 30', workdir('sync-b'));
    await viaBridge(client, 'job_start', slow, token);
    await viaBridge(client, 'job_start', other, token);
    const second = await connect(gw.mcpUrl, 'modern');
    const waiting = viaBridge(client, 'job_status', { ...slow, wait_seconds: 20 });
    const inflight = async () => ((await (await fetch(`${gw.url}/healthz`)).json()) as { inflight_requests: number }).inflight_requests;
    await waitFor(async () => (await inflight()) === 1, 5000, 'the status wait to be in progress');
    const t0 = performance.now();
    const cancelled = await viaBridge(second, 'job_cancel', other);
    const status = await viaBridge(second, 'job_status', other);
    assert.equal(cancelled.data.state, 'cancelled');
    assert.equal(status.data.state, 'cancelled');
    assert.ok(performance.now() - t0 < 5000, 'the other job was served while the first one was being waited on');
    await viaBridge(second, 'job_cancel', slow);
    assert.equal((await waiting).data.state, 'cancelled', 'the waiter woke on the change');
    await Promise.all([client.close(), second.close()]);
  });
});
