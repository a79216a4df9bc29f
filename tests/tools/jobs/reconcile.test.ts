import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { launchGateway } from '../../../bench/launch.js';
import { packageRoot } from '../../../shared/package-root.js';
import { makeFakeSystemctl } from '../../helpers/fake-systemctl.js';
import { connect, optionalComponents, sessionToken, viaBridge } from '../../helpers/gateway.js';
import { prepareJob, workdirIn, type JobCredential } from '../../helpers/jobs.js';
import { tempDirs } from '../../helpers/temp.js';

// The operator's way out of `unknown` jobs nobody holds a token for: the real gateway bin killed
// -9 with four running jobs, restarted; the jobs are unknown and hold all four host slots, so a new
// job is refused. `hermes-mcp-admission reconcile` lists them and changes nothing; with --apply
// (one by --job, then the rest) they become cancelled (operator_reconciled), an audit line each,
// and a new job starts.

const temp = tempDirs();
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  temp.removeAll();
});

async function start(home: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; client: Client }> {
  const { child, port } = await launchGateway(home, env);
  children.add(child);
  return { child, port, client: await connect(`http://127.0.0.1:${port}/mcp`, 'modern') };
}

async function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exit = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exit;
  }
}

function admission(database: string, ...args: string[]): { status: number | null; json: Record<string, unknown>; stderr: string } {
  const r = spawnSync(process.execPath, [join(packageRoot(), 'dist', 'bin', 'admission.js'), 'reconcile', '--json', '--database', database, ...args], { encoding: 'utf8' });
  return { status: r.status, json: r.stdout ? (JSON.parse(r.stdout) as Record<string, unknown>) : {}, stderr: r.stderr };
}

test('reconcile releases unknown jobs that hold every slot: dry run first, then --apply, then a new job starts', async () => {
  const home = temp.make('hmcp-reconcile-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  const env = { HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(), HERMES_MCP_JOB_KILL_GRACE_SECONDS: '1' };
  const database = join(home, 'gateway-jobs.sqlite3');

  const first = await start(home, env);
  const jobs: JobCredential[] = [];
  // Two jobs per session (the per-session limit), four in all: the host limit.
  for (const pair of [0, 1]) {
    const token = await sessionToken(first.client);
    for (const n of [0, 1]) {
      const job = await prepareJob(first.client, token, 'sleep 600', workdirIn(home, `w${pair}${n}`));
      assert.equal((await viaBridge(first.client, 'job_start', job, token)).data.state, 'running');
      jobs.push(job);
    }
  }
  await stopped(first.child, 'SIGKILL');
  await first.client.close().catch(() => {});

  const second = await start(home, env);
  for (const job of jobs) assert.equal((await viaBridge(second.client, 'job_status', job)).data.state, 'unknown');
  const token = await sessionToken(second.client);
  const fresh = await prepareJob(second.client, token, 'echo fresh', workdirIn(home, 'fresh'));
  assert.equal((await viaBridge(second.client, 'job_start', fresh, token)).data.error, 'JOB_QUOTA_EXCEEDED');
  // /readyz names the way out, as the operator runs it here (a checkout: its npm script, no bin on PATH).
  const readyz = (await (await fetch(`http://127.0.0.1:${second.port}/readyz`)).json()) as { job_admission: Record<string, unknown> };
  assert.equal(readyz.job_admission.unknown_jobs, 4);
  assert.match(readyz.job_admission.unknown_jobs_action as string, /npm run admission -- reconcile \(lists them/);
  // So does doctor (the bin's subcommand, same home; systemctl a fake).
  const systemctl = makeFakeSystemctl(home);
  const doctor = spawnSync(process.execPath, [join(packageRoot(), 'dist', 'bin', 'gateway.js'), 'doctor', '--json'], {
    encoding: 'utf8',
    env: { HERMES_HOME: home, HOME: home, HERMES_MCP_ROOTS: home, ...env, PATH: `${systemctl.bin}:/usr/bin:/bin` },
  });
  const jobCheck = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; level: string; fix?: string }> }).checks.find((c) => c.name === 'job_database');
  assert.equal(jobCheck?.level, 'fail', doctor.stdout);
  assert.match(jobCheck?.fix ?? '', /npm run admission -- reconcile --apply/);

  // Dry run: lists all four, changes nothing.
  const dry = admission(database);
  assert.equal(dry.status, 0, dry.stderr);
  assert.deepEqual((dry.json.unknown_jobs as Array<{ id: string }>).map((j) => j.id).sort(), jobs.map((j) => j.job_id).sort());
  for (const job of jobs) assert.equal((await viaBridge(second.client, 'job_status', job)).data.state, 'unknown', 'a dry run changes nothing');
  assert.equal((await viaBridge(second.client, 'job_start', fresh, token)).data.error, 'JOB_QUOTA_EXCEEDED');
  assert.equal(existsSync(`${database}-audit.jsonl`), false, 'a dry run writes no audit line');

  // One by id, then the rest.
  const one = admission(database, '--job', jobs[0]!.job_id, '--apply');
  assert.equal(one.status, 0, one.stderr);
  assert.deepEqual((one.json.results as Array<{ id: string; released: boolean }>).map((r) => [r.id, r.released]), [[jobs[0]!.job_id, true]]);
  assert.equal((await viaBridge(second.client, 'job_status', jobs[1]!)).data.state, 'unknown', '--job releases only that job');
  const again = admission(database, '--job', jobs[0]!.job_id, '--apply');
  assert.equal(again.status, 1, 'a job that is no longer unknown is refused');
  assert.match(again.stderr, /^JOB_NOT_FOUND: .*is cancelled, not unknown/);
  const rest = admission(database, '--apply');
  assert.equal(rest.status, 0, rest.stderr);
  assert.equal((rest.json.results as unknown[]).length, 3);

  for (const job of jobs) {
    const status = (await viaBridge(second.client, 'job_status', job)).data;
    assert.equal(status.state, 'cancelled');
    assert.match(status.termination_reason as string, /^operator_reconciled/);
  }
  const audit = readFileSync(`${database}-audit.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { job: string; action: string });
  assert.deepEqual(audit.map((a) => a.job).sort(), jobs.map((j) => j.job_id).sort());
  assert.ok(audit.every((a) => a.action === 'reconcile'));
  const after = (await (await fetch(`http://127.0.0.1:${second.port}/readyz`)).json()) as { job_admission: Record<string, unknown> };
  assert.equal(after.job_admission.unknown_jobs, 0);
  assert.equal(after.job_admission.unknown_jobs_action, undefined);

  const started = await viaBridge(second.client, 'job_start', fresh, token);
  assert.equal(started.isError, false, JSON.stringify(started.data));
  await second.client.close();
  await stopped(second.child, 'SIGTERM');
});
