import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { launchGateway } from '../../../bench/launch.js';
import { ESCAPEE_COUNT, escapeeCommand, killSurvivors, newMarker, waitForNoSurvivors, waitForSurvivors } from '../../helpers/escapees.js';
import { connect, optionalComponents, sessionToken, viaBridge } from '../../helpers/gateway.js';
import { prepareJob } from '../../helpers/jobs.js';
import { waitFor } from '../../helpers/wait.js';

// SIGKILL of the real gateway bin while a PTY job runs: the gateway gets no chance to stop
// anything, yet nothing of the job survives (its worker sees the supervisor's channel close and
// kills its whole PID namespace, terminal session and setsid daemons included), and the next
// gateway calls the job unknown, as for any job whose completion cannot be proven.

const marker = newMarker();
const home = mkdtempSync(join(tmpdir(), 'hmcp-pty-kill-'));
let gateway: ChildProcess | undefined;
after(() => {
  if (gateway && gateway.exitCode === null && gateway.signalCode === null) gateway.kill('SIGKILL');
  killSurvivors(marker);
  rmSync(home, { recursive: true, force: true });
});

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => child.once('exit', resolve));
}

test('kill -9 of the gateway during a PTY job that forked setsid daemons leaves nothing', async () => {
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  mkdirSync(join(home, 'w'));
  const env = { HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents() };
  const first = await launchGateway(home, env);
  gateway = first.child;
  const client = await connect(`http://127.0.0.1:${first.port}/mcp`, 'modern');
  const job = await prepareJob(client, await sessionToken(client), escapeeCommand(marker), join(home, 'w'), { pty: true });
  const started = await viaBridge(client, 'job_start', job, await sessionToken(client));
  assert.equal(started.data.state, 'running', JSON.stringify(started.data));
  assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'the escapees are up');
  await waitFor(async () => /ready/.test((await viaBridge(client, 'job_status', job)).data.output_tail as string), 10_000, 'ready on the terminal');
  first.child.kill('SIGKILL');
  await exited(first.child);
  assert.deepEqual(await waitForNoSurvivors(marker), [], 'nothing the PTY job started outlives the gateway');
  await client.close().catch(() => {});

  const second = await launchGateway(home, env);
  gateway = second.child;
  const again = await connect(`http://127.0.0.1:${second.port}/mcp`, 'modern');
  const status = await viaBridge(again, 'job_status', job);
  assert.equal(status.data.state, 'unknown', JSON.stringify(status.data));
  assert.equal(status.data.tty, true);
  await again.close();
  second.child.kill('SIGTERM');
  await exited(second.child);
});
