import assert from 'node:assert/strict';
import { existsSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { advanceAndMaintain, testClock } from '../../helpers/clock.js';
import { startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn, type JobCredential } from '../../helpers/jobs.js';

// Admission over MCP: quotas and workspace locks are explicit errors (never a queue) and nothing
// runs when they refuse; bad preparations are refused before anything is stored; outputs are
// bounded and redacted before they are stored.

describe('jobs: admission rules and input validation', () => {
  let gw: TestGateway;
  const clock = testClock();
  before(async () => {
    gw = await startTestGateway({ now: clock.now, limits: { jobKillGraceSeconds: 1, jobOutputTailChars: 2000, jobPrepareTtlSeconds: 3 } });
  });
  after(async () => {
    await gw.close();
  });

  const session = () => openSession(gw.mcpUrl);
  const workdir = (...parts: string[]) => workdirIn(gw.home, 'rules', ...parts);
  const prepare = prepareJob;
  async function cancelAll(client: Client, jobs: JobCredential[]) {
    for (const job of jobs) await viaBridge(client, 'job_cancel', job);
  }

  test('two active jobs per session, four on the host; the refused job stays prepared and runs nothing', async () => {
    const a = await session();
    const b = await session();
    const c = await session();
    const running: JobCredential[] = [];
    const startIn = async (s: typeof a, name: string) => {
      const job = await prepare(s.client, s.token, 'sleep 30', workdir(name));
      assert.equal((await viaBridge(s.client, 'job_start', job, s.token)).data.state, 'running');
      running.push(job);
    };
    await startIn(a, 'q1');
    await startIn(a, 'q2');
    const marker = join(workdir('q5'), 'ran');
    const third = await prepare(a.client, a.token, `touch ${marker}`, workdir('q5'));
    assert.equal((await viaBridge(a.client, 'job_start', third, a.token)).data.error, 'JOB_SESSION_QUOTA_EXCEEDED');
    await startIn(b, 'q3');
    await startIn(b, 'q4');
    // It keeps running once started, so the start's answer can only say `running` (a bare `touch`
    // could already have succeeded by the time the answer is written).
    const fifth = await prepare(c.client, c.token, `touch ${marker} && sleep 30`, workdir('q5'));
    const full = await viaBridge(c.client, 'job_start', fifth, c.token);
    assert.equal(full.data.error, 'JOB_QUOTA_EXCEEDED');
    assert.match(full.data.message as string, /4 jobs are active/);
    assert.equal((await viaBridge(c.client, 'job_status', fifth)).data.state, 'prepared');
    assert.ok(!existsSync(marker), 'a refused start runs nothing');
    await cancelAll(a.client, running);
    assert.equal((await viaBridge(c.client, 'job_start', fifth, c.token)).data.state, 'running', 'startable once capacity is back');
    await cancelAll(c.client, [fifth, third]);
    await Promise.all([a.client.close(), b.client.close(), c.client.close()]);
  });

  test('no two active jobs in the same or nested workspaces', async () => {
    const { client, token } = await session();
    const outer = await prepare(client, token, 'sleep 30', workdir('ws'));
    await viaBridge(client, 'job_start', outer, token);
    for (const dir of [workdir('ws'), workdir('ws', 'inner')]) {
      const other = await session();
      const job = await prepare(other.client, other.token, 'true', dir);
      const r = await viaBridge(other.client, 'job_start', job, other.token);
      assert.equal(r.data.error, 'JOB_WORKSPACE_BUSY', dir);
      await other.client.close();
    }
    const sibling = await prepare(client, token, 'true', workdir('ws-sibling'));
    assert.notEqual((await viaBridge(client, 'job_start', sibling, token)).data.error, 'JOB_WORKSPACE_BUSY', 'a name prefix is not nesting');
    await cancelAll(client, [outer]);
    await client.close();
  });

  test('bad preparations are refused before anything is stored', async () => {
    const { client, token } = await session();
    const dir = workdir('bad');
    writeFileSync(join(dir, 'file'), '');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ command: 'true', workdir: dir, max_runtime: 0 }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', workdir: dir, max_runtime: 7201 }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', workdir: dir, idempotency_key: 'short' }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', workdir: dir, idempotency_key: 'k'.repeat(129) }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', workdir: dir, resource_profile: 'huge' }, 'INVALID_ARGUMENTS'],
      [{ command: '', workdir: dir }, 'INVALID_ARGUMENTS'],
      [{ command: 'true', workdir: '/etc' }, 'PATH_OUTSIDE_ROOTS'],
      // A relative workdir resolves against the session's directory (the root here): a missing one is
      // missing, one that leads out of the root is outside it.
      [{ command: 'true', workdir: 'relative/dir' }, 'FILE_NOT_FOUND'],
      [{ command: 'true', workdir: '..' }, 'PATH_OUTSIDE_ROOTS'],
      [{ command: 'true', workdir: join(dir, 'file') }, 'PATH_OUTSIDE_ROOTS'],
      [{ command: 'rm -rf /', workdir: dir }, 'COMMAND_BLOCKED'],
    ];
    for (const [args, code] of cases) {
      const r = await viaBridge(client, 'job_prepare', args, token);
      assert.equal(r.data.error, code, JSON.stringify(args));
      assert.equal(r.data.job_id, undefined);
    }
    await client.close();
  });

  test("a relative workdir resolves against the session's current directory, as the terminal's; out of the roots it is refused", async () => {
    const { client, token } = await session();
    const root = realpathSync(gw.home);
    const sub = workdir('rel', 'sub');
    symlinkSync(tmpdir(), join(workdir('rel'), 'out-link'));
    const preparedIn = async (dir: string) => {
      const job = await prepare(client, token, 'pwd', dir);
      return { job, workdir: (await viaBridge(client, 'job_status', job)).data.workdir };
    };
    // A fresh session's directory is the terminal's starting one: the first root.
    assert.equal((await preparedIn('.')).workdir, root);
    // After a cd, relative workdirs follow the session's terminal.
    assert.equal((await viaBridge(client, 'terminal', { command: 'cd rules/rel' }, token)).isError, false);
    const here = await preparedIn('sub');
    assert.equal(here.workdir, realpathSync(sub));
    assert.equal((await preparedIn('./sub/../sub')).workdir, realpathSync(sub));
    // The job runs there.
    assert.equal((await viaBridge(client, 'job_start', here.job, token)).isError, false);
    assert.equal(String((await waitForFinal(client, here.job)).output_tail).trim(), realpathSync(sub));
    // `..` up and out of the root, and a symlink inside it that leads out, are outside the roots.
    for (const outside of ['../../..', 'out-link']) {
      const refused = await viaBridge(client, 'job_prepare', { command: 'true', workdir: outside }, token);
      assert.equal(refused.data.error, 'PATH_OUTSIDE_ROOTS', outside);
      const cwd = join(gw.home, 'rules', 'rel');
      assert.equal(refused.data.message, `path is outside the allowed roots (HERMES_MCP_ROOTS): ${resolve(cwd, outside)} (the relative workdir '${outside}' resolved against the session's current directory ${cwd})`);
      assert.equal(refused.data.resolved_path, resolve(cwd, outside));
      assert.equal(refused.data.job_id, undefined);
    }
    await client.close();
  });

  test('an unused preparation expires: start answers JOB_EXPIRED and status says expired', async () => {
    const { client, token } = await session();
    const job = await prepare(client, token, 'true', workdir('exp'));
    clock.advance(3000); // the 3 s preparation lifetime is over
    assert.equal((await viaBridge(client, 'job_start', job, token)).data.error, 'JOB_EXPIRED');
    assert.equal((await viaBridge(client, 'job_status', job)).data.state, 'expired');
    // Once the sweep (or the first start) has marked it expired, a start still answers JOB_EXPIRED.
    assert.equal((await viaBridge(client, 'job_start', job, token)).data.error, 'JOB_EXPIRED');
    await client.close();
  });

  test('the maintenance sweep expires an unused preparation on its own, and only once its lifetime is over', async () => {
    const { client, token } = await session();
    const job = await prepare(client, token, 'true', workdir('exp-sweep'));
    advanceAndMaintain(gw, clock, 2900);
    assert.equal((await viaBridge(client, 'job_status', job)).data.state, 'prepared', 'still inside its 3 s lifetime');
    advanceAndMaintain(gw, clock, 100);
    const swept = await viaBridge(client, 'job_status', job);
    assert.equal(swept.data.state, 'expired', 'expired by the sweep, with no start attempted');
    assert.equal((await viaBridge(client, 'job_start', job, token)).data.error, 'JOB_EXPIRED');
    await client.close();
  });

  test('job_status wait_seconds returns as soon as the state changes', async () => {
    const { client, token } = await session();
    const job = await prepare(client, token, 'sleep 0.5', workdir('wait'));
    await viaBridge(client, 'job_start', job, token);
    const t0 = performance.now();
    const r = await viaBridge(client, 'job_status', { ...job, wait_seconds: 20 });
    assert.equal(r.data.state, 'succeeded');
    assert.ok(performance.now() - t0 < 10_000, 'woke on the change, not at the end of the wait');
    const over = await viaBridge(client, 'job_status', { ...job, wait_seconds: 26 });
    assert.equal(over.data.error, 'INVALID_ARGUMENTS', 'waits are capped at 25 s');
    await client.close();
  });

  test('stored output is a bounded, redacted tail with the total byte count', async () => {
    const { client, token } = await session();
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const job = await prepare(client, token, `for i in $(seq 1 500); do echo "line $i of filler text"; done; echo "token ${secret}"`, workdir('out'));
    await viaBridge(client, 'job_start', job, token);
    const r = await viaBridge(client, 'job_status', { ...job, wait_seconds: 10 });
    assert.equal(r.data.state, 'succeeded');
    const tail = r.data.output_tail as string;
    assert.ok(tail.length <= 2000, `tail bounded: ${tail.length}`);
    assert.ok((r.data.output_bytes as number) > 10_000);
    assert.equal(r.data.output_truncated, true);
    assert.match(tail, /line 500 of filler text/);
    assert.ok(!tail.includes(secret), 'the secret was redacted before storing');
    assert.ok(!JSON.stringify(r.result).includes(secret));
    await client.close();
  });
});
