import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { admitJob, getJob, prepareJob } from '../../../supervisor/tools/jobs/store/index.js';
import { probeCgroupRoot } from '../../../supervisor/platform/spawning/resource-policy.js';
import { openJobDatabase } from '../../../supervisor/tools/jobs/store/index.js';
import { startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { openSession, prepareJob as prepareOverMcp, workdirIn } from '../../helpers/jobs.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// Launches that go wrong after admission must end the job (failed, capacity and workspace back)
// rather than leave it `starting` forever; admission decides with the policy in force at start.

const temp = tempDirs();
after(() => temp.removeAll());
const tempDir = temp.make;

test('a scope wrapper that never comes up: job_start answers failed (launch_failed) within the start timeout, the hung wrapper is killed and the workspace is free', async () => {
  const root = tempDir('hmcp-hung-scope-');
  mkdirSync(join(root, 'bin'));
  const pids = join(root, 'pids');
  // systemd-run that hangs for job scopes (recording its pid) and behaves like the real --scope otherwise.
  writeFileSync(
    join(root, 'bin', 'systemd-run'),
    `#!/bin/bash
case " $* " in *" --slice=hermesjobs.slice "*) echo $$ >> '${pids}'; exec sleep 600 ;; esac
while [ $# -gt 0 ]; do case "$1" in --) shift; break ;; -p|--property|--slice|--unit|-u) shift 2 ;; -*) shift ;; *) break ;; esac; done
exec "$@"
`,
  );
  chmodSync(join(root, 'bin', 'systemd-run'), 0o755);
  const policy = join(root, 'policy.json');
  writeFileSync(policy, readFileSync(join(packageRoot(), 'policy', 'resource-policy.example.json')), { mode: 0o644 });
  const saved = process.env.PATH;
  process.env.PATH = `${join(root, 'bin')}:${saved}`;
  let gw: TestGateway;
  try {
    gw = await startTestGateway({ env: { HERMES_MCP_RESOURCE_POLICY: policy, HERMES_MCP_JOB_KILL_GRACE_SECONDS: '1' }, limits: { workerStartTimeoutSeconds: 2 } });
  } finally {
    process.env.PATH = saved;
  }
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const dir = workdirIn(gw.home, 'hung');
    const job = await prepareOverMcp(client, token, 'echo never', dir, { resource_profile: 'light' });
    const t0 = performance.now();
    const started = await viaBridge(client, 'job_start', job, token);
    assert.ok(performance.now() - t0 < 10_000, 'answered after the start timeout, not never');
    assert.equal(started.data.state, 'failed', JSON.stringify(started.data));
    assert.match(started.data.termination_reason as string, /launch_failed: could not start the background process: the worker did not come up within 2 s/);
    const hung = Number(readFileSync(pids, 'utf8').trim().split('\n')[0]);
    assert.ok(hung > 0);
    const gone = () => {
      try {
        process.kill(hung, 0);
        return false;
      } catch {
        return true;
      }
    };
    await waitFor(gone, 2000, 'the hung wrapper to be killed');
    // Capacity and the workspace came back: the cancel does not hang either.
    assert.equal((await viaBridge(client, 'job_cancel', job)).data.state, 'failed');
    await client.close();
  } finally {
    await gw.close();
  }
});

test('finished background processes do not count against the running limit', async () => {
  const gw = await startTestGateway();
  try {
    for (let batch = 0; batch < 9; batch++) {
      const procs = await Promise.all(Array.from({ length: 8 }, () => gw.native.processes.start('owner-x', 'true', gw.home)));
      await Promise.all(procs.map((p) => gw.native.processes.wait(p, 10_000, new AbortController().signal)));
    }
    assert.equal(gw.native.processes.hasCapacity, true, '72 finished processes leave the limit free');
  } finally {
    await gw.close();
  }
});

test('admission reserves memory by the policy in force at start, not the one at preparation', () => {
  const dir = tempDir('hmcp-reserve-');
  const db = openJobDatabase(join(dir, 'jobs.sqlite3'));
  try {
    const p = prepareJob(db, { command: 'true', workdir: '/w/a', maxRuntime: 60, profile: 'heavy', heavy: true, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 10, ttlMs: 60_000 }, Date.now());
    const rules = { maxActive: 4, maxPerSession: 2, maxHeavy: 1, memoryBudget: 8 * 1024 ** 3, reservationFor: (profile: string) => (profile === 'heavy' ? 6 * 1024 ** 3 : 1024 ** 3) };
    admitJob(db, { id: p.job_id, token: p.recovery_token!, sessionId: 's', instance: { id: 'i', pid: process.pid, start: 'x' }, unit: 'u' }, rules, Date.now());
    assert.equal(getJob(db, p.job_id)!.memory_reservation, 6 * 1024 ** 3);
    const q = prepareJob(db, { command: 'true', workdir: '/w/b', maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o' }, { maxPrepared: 10, ttlMs: 60_000 }, Date.now());
    assert.throws(
      () => admitJob(db, { id: q.job_id, token: q.recovery_token!, sessionId: 's2', instance: { id: 'i', pid: process.pid, start: 'x' }, unit: 'u2' }, { ...rules, reservationFor: () => 3 * 1024 ** 3 }, Date.now()),
      /JOB_MEMORY_UNAVAILABLE|reserve/,
    );
  } finally {
    db.close();
  }
});

test('the direct-cgroup fallback needs an explicit, process-free delegated directory', () => {
  assert.match(probeCgroupRoot(undefined).reason, /HERMES_MCP_CGROUP_ROOT/);
  const root = tempDir('hmcp-cg-');
  assert.match(probeCgroupRoot(root).reason, /not a cgroup v2 directory/);
  writeFileSync(join(root, 'cgroup.controllers'), 'cpu memory pids\n');
  writeFileSync(join(root, 'cgroup.subtree_control'), '');
  writeFileSync(join(root, 'cgroup.procs'), `${process.pid}\n`);
  assert.match(probeCgroupRoot(root).reason, /has member processes/);
  writeFileSync(join(root, 'cgroup.procs'), '');
  assert.equal(probeCgroupRoot(root).ok, true);
});
