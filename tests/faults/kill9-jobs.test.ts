import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { launchGateway } from '../../bench/launch.js';
import { packageRoot } from '../../shared/package-root.js';
import { killSurvivors, newMarker, waitForNoSurvivors } from '../helpers/escapees.js';
import { connect, optionalComponents, sessionToken, viaBridge } from '../helpers/gateway.js';
import { FULL, seededRandom } from './faults.js';

// kill -9 of the real gateway bin at a seeded random point of a job's life cycle (prepare, start,
// running, finishing, cancel), then a restart on the same database. After every kill: every
// receipt is there, each state is the truth (the command's real outcome, or `unknown`; never
// `succeeded` for a command that cannot succeed), nothing the job started survives, no job ran
// twice (each command appends one line per run to its own file), and the admission view of
// capacity matches the jobs' states (no quota miscounted). ≥ 50 kills with FAULTS_FULL=1.

const ITERATIONS = FULL ? 50 : 4;
const PHASES = ['prepare', 'start', 'running', 'finishing', 'cancel'] as const;
type Phase = (typeof PHASES)[number];
const ACTIVE = new Set(['starting', 'running', 'unknown']);

const home = mkdtempSync(join(tmpdir(), 'hmcp-kill9-'));
writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
mkdirSync(join(home, 'state'), { mode: 0o700 });
const env = { HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(), HERMES_MCP_JOB_KILL_GRACE_SECONDS: '1' };
const children = new Set<ChildProcess>();
const markers: string[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const m of markers) killSurvivors(m);
  rmSync(home, { recursive: true, force: true });
});

interface Tracked {
  phase: Phase;
  job?: { job_id: string; recovery_token: string };
  runs: string;
  marker: string;
  /** The exit codes the command can end with on its own (none: it only ends when killed). */
  exits: number[];
}

/** The command for a phase: it records each run, carries the marker, and ends as the phase needs. */
function commandFor(phase: Phase, runs: string, marker: string): { command: string; exits: number[] } {
  const record = `echo run >> ${runs}`;
  if (phase === 'finishing') return { command: `${record}; (exec -a ${marker} sleep 0.$((RANDOM % 9 + 1))); exit 3`, exits: [3] };
  return { command: `${record}; exec -a ${marker} sleep 600`, exits: [] };
}

const rng = seededRandom('kill -9 of the gateway during job life cycles');
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(`kill -9 at ${ITERATIONS} random points of the job life cycle: receipts, truthful states, no orphan, no replay, capacity right`, { timeout: ITERATIONS * 30_000 }, async () => {
  const tracked: Tracked[] = [];
  let gw = await startGateway();
  for (let i = 0; i < ITERATIONS; i++) {
    const phase = rng.pick(PHASES);
    const wait = rng.int(400);
    const dir = join(home, `w${i}`);
    mkdirSync(dir);
    const marker = newMarker();
    markers.push(marker);
    const runs = join(dir, 'runs.log');
    const { command, exits } = commandFor(phase, runs, marker);
    const t: Tracked = { phase, runs, marker, exits };
    tracked.push(t);
    const prepare = () => viaBridge(gw.client, 'job_prepare', { command, workdir: dir }, gw.token);
    // Each phase sends its last request without waiting, and the kill lands `wait` ms later.
    let inFlight: Promise<unknown> = Promise.resolve();
    if (phase === 'prepare') {
      inFlight = prepare().then((p) => !p.isError && (t.job = { job_id: p.data.job_id as string, recovery_token: p.data.recovery_token as string }));
    } else {
      const p = await prepare();
      assert.equal(p.isError, false, JSON.stringify(p.data));
      t.job = { job_id: p.data.job_id as string, recovery_token: p.data.recovery_token as string };
      if (phase === 'start') inFlight = viaBridge(gw.client, 'job_start', t.job, gw.token);
      else {
        const s = await viaBridge(gw.client, 'job_start', t.job, gw.token);
        assert.equal(s.data.state, 'running', JSON.stringify(s.data));
        if (phase === 'cancel') inFlight = viaBridge(gw.client, 'job_cancel', t.job);
        if (phase === 'finishing') await delay(100 + rng.int(700));
      }
    }
    // Handled now: the request fails when the gateway dies, possibly before it is awaited below.
    inFlight = inFlight.catch(() => undefined);
    process.stdout.write(`# iteration ${i}: ${phase}, kill -9 after ${wait} ms\n`);
    await delay(wait);
    gw.child.kill('SIGKILL');
    await new Promise((r) => (gw.child.exitCode !== null || gw.child.signalCode !== null ? r(null) : gw.child.once('exit', r)));
    await inFlight;
    await gw.client.close().catch(() => {});
    assert.deepEqual(await waitForNoSurvivors(marker, 5000), [], `iteration ${i} (${phase} +${wait} ms, FAULTS_SEED=${rng.seed}): nothing the job started outlives the gateway`);
    gw = await startGateway();
    await checkEverything(gw, tracked, `iteration ${i} (${phase} +${wait} ms, FAULTS_SEED=${rng.seed})`);
  }
  gw.child.kill('SIGTERM');
  await gw.client.close();
});

async function startGateway() {
  const { child, port } = await launchGateway(home, env);
  children.add(child);
  const client = await connect(`http://127.0.0.1:${port}/mcp`, 'modern');
  return { child, client, token: await sessionToken(client), port };
}

async function checkEverything(gw: Awaited<ReturnType<typeof startGateway>>, tracked: Tracked[], where: string): Promise<void> {
  const states: string[] = [];
  for (const t of tracked) {
    const runs = existsSync(t.runs) ? readFileSync(t.runs, 'utf8').split('\n').filter(Boolean).length : 0;
    if (!t.job) {
      // The prepare never answered: whatever it left, nothing ran.
      assert.equal(runs, 0, `${where}: an unanswered prepare ran nothing`);
      continue;
    }
    let s = await viaBridge(gw.client, 'job_status', t.job);
    assert.notEqual(s.data.error, 'JOB_NOT_FOUND', `${where}: the receipt of ${t.phase} job ${t.job.job_id} survives`);
    assert.equal(s.isError, false, `${where}: ${JSON.stringify(s.data)}`);
    const state = s.data.state as string;
    if (state === 'succeeded') assert.fail(`${where}: ${t.phase} job ${t.job.job_id} cannot succeed on its own but reads succeeded`);
    if (state === 'failed') assert.ok(t.exits.includes(s.data.exit_code as number), `${where}: failed with a real exit code: ${JSON.stringify(s.data)}`);
    assert.ok(runs <= 1, `${where}: ${t.phase} job ${t.job.job_id} ran ${runs} times`);
    if (state === 'prepared') assert.equal(runs, 0, `${where}: a job still prepared has not run`);
    // Repeating an authorized start never relaunches a job that already started.
    if (state !== 'prepared' && state !== 'expired') {
      await viaBridge(gw.client, 'job_start', t.job, gw.token);
      assert.ok((existsSync(t.runs) ? readFileSync(t.runs, 'utf8').split('\n').filter(Boolean).length : 0) <= 1, `${where}: a repeated job_start relaunched ${t.job.job_id}`);
    }
    // Release what a kill left unknown (cancel verifies no process remains), and cancel what still
    // waits, so the next iteration has capacity.
    if (state === 'unknown' || state === 'running' || state === 'prepared') {
      s = await viaBridge(gw.client, 'job_cancel', t.job);
      assert.ok(['cancelled', 'failed', 'timed_out'].includes(s.data.state as string), `${where}: ${JSON.stringify(s.data)}`);
    }
    states.push(s.data.state as string);
  }
  // No quota miscounted: the admission view's active jobs are exactly the jobs whose state is active.
  const status = JSON.parse(
    spawnSync(process.execPath, [join(packageRoot(), 'dist', 'bin', 'admission.js'), 'status', '--json', '--database', join(home, 'gateway-jobs.sqlite3')], { encoding: 'utf8' }).stdout,
  ) as { active_jobs: Array<{ id: string }> };
  assert.deepEqual(status.active_jobs.map((j) => j.id), [], `${where}: every job is final, so nothing holds capacity (states ${states.join(',')})`);
  assert.equal(states.filter((s) => ACTIVE.has(s)).length, 0);
}
