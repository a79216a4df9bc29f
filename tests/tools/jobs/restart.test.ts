import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { launchGateway } from '../../../bench/launch.js';
import { packageRoot } from '../../../shared/package-root.js';
import { ESCAPEE_COUNT, escapeeCommand, killSurvivors, newMarker, waitForNoSurvivors, waitForSurvivors } from '../../helpers/escapees.js';
import { connect, optionalComponents, sessionToken, viaBridge } from '../../helpers/gateway.js';
import { waitFor } from '../../helpers/wait.js';

// The real gateway bin as a child process, killed and restarted around running jobs: receipts
// survive, outcomes are recovered from the worker's exit record when it got that far and are
// `unknown` otherwise, nothing the job started outlives the gateway, and SIGTERM is a controlled
// shutdown that records what it stopped.

const homes: string[] = [];
const children = new Set<ChildProcess>();
const markers: string[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const m of markers) killSurvivors(m);
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function newHome(): { home: string; env: NodeJS.ProcessEnv } {
  const home = mkdtempSync(join(tmpdir(), 'hmcp-jobs-restart-'));
  homes.push(home);
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  mkdirSync(join(home, 'w'));
  return { home, env: { HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(), HERMES_MCP_JOB_KILL_GRACE_SECONDS: '1' } };
}

async function start(home: string, env: NodeJS.ProcessEnv) {
  const { child, port } = await launchGateway(home, env);
  children.add(child);
  // The log events from here on (one JSON object per stderr line).
  const events: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    try {
      events.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // not a log line
    }
  });
  const client = await connect(`http://127.0.0.1:${port}/mcp`, 'modern');
  return { child, port, client, logs: () => events };
}

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => child.once('exit', resolve));
}

async function prepareAndStart(client: Client, command: string, workdir: string) {
  const token = await sessionToken(client);
  const prep = await viaBridge(client, 'job_prepare', { command, workdir }, token);
  assert.equal(prep.isError, false, JSON.stringify(prep.data));
  const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
  const started = await viaBridge(client, 'job_start', job, token);
  assert.equal(started.data.state, 'running', JSON.stringify(started.data));
  return job;
}

describe('jobs across gateway restarts', () => {
  test('kill -9 during a running job: no orphan, the receipt survives, the job is unknown and keeps its workspace until cancelled', async () => {
    const { home, env } = newHome();
    const marker = newMarker();
    markers.push(marker);
    const first = await start(home, env);
    const workdir = join(home, 'w');
    const job = await prepareAndStart(first.client, `echo before-kill; ${escapeeCommand(marker)}; sleep 600`, workdir);
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'the job and its escapees run');
    // The output is stored before the kill (job_status flushes it, as the next maintenance pass would).
    await waitFor(async () => /before-kill/.test((await viaBridge(first.client, 'job_status', job)).data.output_tail as string), 10_000, 'the output to be stored');
    first.child.kill('SIGKILL');
    await exited(first.child);
    assert.deepEqual(await waitForNoSurvivors(marker), [], 'nothing the job started outlives the gateway');
    await first.client.close().catch(() => {});

    const second = await start(home, env);
    const status = await viaBridge(second.client, 'job_status', job);
    assert.equal(status.data.state, 'unknown', JSON.stringify(status.data));
    assert.match(status.data.termination_reason as string, /gateway_restarted: completion cannot be proven/);
    assert.match(status.data.output_tail as string, /before-kill/, 'the stored output survived');
    // Unknown keeps the workspace quarantined: a new job there is refused, never queued.
    const token = await sessionToken(second.client);
    const prep = await viaBridge(second.client, 'job_prepare', { command: 'true', workdir }, token);
    const refused = await viaBridge(second.client, 'job_start', { job_id: prep.data.job_id, recovery_token: prep.data.recovery_token }, token);
    assert.equal(refused.data.error, 'JOB_WORKSPACE_BUSY');
    // Cancelling it verifies no process remains; it becomes cancelled, never succeeded.
    const cancelled = await viaBridge(second.client, 'job_cancel', job);
    assert.equal(cancelled.data.state, 'cancelled');
    assert.match(cancelled.data.termination_reason as string, /no process of the job remains/);
    const retried = await viaBridge(second.client, 'job_start', { job_id: prep.data.job_id, recovery_token: prep.data.recovery_token }, token);
    assert.notEqual(retried.data.error, 'JOB_WORKSPACE_BUSY', JSON.stringify(retried.data));
    await second.client.close();
    second.child.kill('SIGTERM');
    await exited(second.child);
  });

  test('a job that finished while its gateway was frozen and then killed is recovered from its exit record', async () => {
    const { home, env } = newHome();
    const first = await start(home, env);
    const job = await prepareAndStart(first.client, 'sleep 1; exit 7', join(home, 'w'));
    first.child.kill('SIGSTOP');
    // The command ends and the worker records it (written atomically) while the gateway is frozen.
    const exitRecord = join(home, 'gateway-jobs.sqlite3-exits', `${job.job_id}.json`);
    await waitFor(() => existsSync(exitRecord), 10_000, 'the worker to write the exit record');
    first.child.kill('SIGKILL');
    await exited(first.child);
    await first.client.close().catch(() => {});
    const second = await start(home, env);
    const status = await viaBridge(second.client, 'job_status', job);
    assert.equal(status.data.state, 'failed', JSON.stringify(status.data));
    assert.equal(status.data.exit_code, 7);
    assert.match(status.data.termination_reason as string, /recovered from the exit record/);
    await second.client.close();
    second.child.kill('SIGTERM');
    await exited(second.child);
  });

  test('SIGTERM is a controlled shutdown: the running job gets TERM and is recorded as cancelled by the shutdown', async () => {
    const { home, env } = newHome();
    const marker = newMarker();
    markers.push(marker);
    const first = await start(home, env);
    const job = await prepareAndStart(first.client, `trap 'echo term-seen; exit 143' TERM; ${escapeeCommand(marker)}; while true; do sleep 0.1; done`, join(home, 'w'));
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT);
    first.child.kill('SIGTERM');
    await exited(first.child);
    assert.equal(first.child.exitCode, 0, 'a clean exit');
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await first.client.close().catch(() => {});
    const second = await start(home, env);
    const status = await viaBridge(second.client, 'job_status', job);
    assert.equal(status.data.state, 'cancelled', JSON.stringify(status.data));
    assert.equal(status.data.termination_reason, 'gateway_shutdown');
    assert.match(status.data.output_tail as string, /term-seen/);
    await second.client.close();
    second.child.kill('SIGTERM');
    await exited(second.child);
  });

  test('SIGUSR1 pauses fresh starts on the running gateway, SIGUSR2 resumes them', async () => {
    const { home, env } = newHome();
    const gw = await start(home, env);
    const token = await sessionToken(gw.client);
    const prep = await viaBridge(gw.client, 'job_prepare', { command: 'echo resumed', workdir: join(home, 'w') }, token);
    const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    gw.child.kill('SIGUSR1');
    const readyz = async () => ((await (await fetch(`http://127.0.0.1:${gw.port}/readyz`)).json()) as { job_admission: Record<string, unknown> }).job_admission;
    await waitFor(async () => (await readyz()).signal_paused === true, 5000, 'SIGUSR1 to pause fresh starts');
    assert.equal((await readyz()).accepting, false);
    // The operator CLI sees the same gate as /readyz: this gateway's SIGUSR1 pause.
    const cliStatus = () => JSON.parse(spawnSync(process.execPath, [join(packageRoot(), 'dist', 'bin', 'admission.js'), 'status', '--json', '--database', join(home, 'gateway-jobs.sqlite3')], { encoding: 'utf8' }).stdout) as { signal_paused: Array<{ pid: number }> };
    assert.deepEqual(cliStatus().signal_paused.map((p) => p.pid), [gw.child.pid]);
    const refused = await viaBridge(gw.client, 'job_start', job, token);
    assert.equal(refused.data.error, 'JOB_ADMISSION_PAUSED');
    assert.equal((await viaBridge(gw.client, 'job_status', job)).data.state, 'prepared', 'the prepared job stays valid');
    gw.child.kill('SIGUSR2');
    await waitFor(async () => (await readyz()).signal_paused === false, 5000, 'SIGUSR2 to resume fresh starts');
    assert.deepEqual(cliStatus().signal_paused, []);
    // Each signal is logged as it arrives.
    const signals = gw.logs().flatMap((l) => (l.event === 'signal' ? [l.signal] : []));
    assert.deepEqual(signals, ['SIGUSR1', 'SIGUSR2']);
    const started = await viaBridge(gw.client, 'job_start', job, token);
    assert.equal(started.isError, false, JSON.stringify(started.data));
    await gw.client.close();
    gw.child.kill('SIGTERM');
    await exited(gw.child);
  });
});
