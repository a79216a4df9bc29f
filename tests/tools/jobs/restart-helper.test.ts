// scripts/restart-gateway.sh, the deployment restart helper, as a real child process: against a
// real in-process gateway (happy path) or a tiny loopback HTTP server standing in for one whose
// /healthz the test controls. `systemctl` is always a FAKE placed first on PATH that only records
// its argv (and whether admission was paused at that moment); no systemd manager is ever touched.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { admitJob, gateState, getJob, prepareJob, type AdmissionRules, type Instance } from '../../../supervisor/tools/jobs/store/index.js';
import { openJobDatabase, type JobDatabase } from '../../../supervisor/tools/jobs/store/index.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { within } from '../../helpers/wait.js';

// dist/tests/jobs/restart-helper.test.js -> repo root is three levels up.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const script = join(repoRoot, 'scripts', 'restart-gateway.sh');
const realCli = join(repoRoot, 'dist', 'bin', 'admission.js');
const work = mkdtempSync(join(tmpdir(), 'hermes-restart-helper-'));
const fakeHome = join(work, 'home'); // HOME for the helper, so no default ever reaches the real ~/.hermes
mkdirSync(fakeHome, { mode: 0o700 });
const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(work, { recursive: true, force: true });
});

const RULES: AdmissionRules = { maxActive: 4, maxPerSession: 2, maxHeavy: Infinity, memoryBudget: Infinity };
const INSTANCE: Instance = { id: 't', pid: process.pid, start: 'x' };
const bash = spawnSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim() || '/bin/bash';
const STEPS = ['snapshot', 'drain', 'idle', 'restart', 'ready', 'resume'] as const;

let dirs = 0;
function freshDir(name: string): string {
  const dir = join(work, `${++dirs}-${name}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

function tokenFile(dir: string, mode = 0o600): { path: string; token: string } {
  const token = randomBytes(30).toString('base64url'); // 40 characters
  const path = join(dir, 'owner-token');
  writeFileSync(path, `${token}\n`, { mode });
  chmodSync(path, mode); // the umask may have narrowed it
  return { path, token };
}

interface SystemctlCall {
  argv: string[];
  at: number;
  /** The admission gate at the moment of the call (true: paused), read from the job database. */
  paused: boolean | string | null;
}

/**
 * A bin directory whose `systemctl` is a fake that appends {argv, at, paused} as a JSON line to a
 * log (both paths baked in). With `fakeCurl`, `curl` is a fake too that records and fails, so a
 * refused URL provably never reached any network.
 */
function fakeBin(dir: string, database: string | null, options: { fakeCurl?: boolean } = {}) {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { mode: 0o700 });
  const log = join(dir, 'systemctl.jsonl');
  const curlLog = join(dir, 'curl.jsonl');
  const sqlite = join(repoRoot, 'node_modules', 'better-sqlite3');
  writeFileSync(
    join(bin, 'systemctl'),
    `#!${process.execPath}
const fs = require('node:fs');
let paused = null;
const database = ${JSON.stringify(database)};
if (database) {
  try {
    const Database = require(${JSON.stringify(sqlite)});
    const db = new Database(database, { readonly: true, fileMustExist: true });
    paused = db.prepare('SELECT paused FROM admission_gate WHERE id = 1').get().paused === 1;
    db.close();
  } catch (e) {
    paused = 'error: ' + e.message;
  }
}
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ argv: process.argv.slice(2), at: Date.now(), paused }) + '\\n');
`,
    { mode: 0o700 },
  );
  if (options.fakeCurl) {
    writeFileSync(join(bin, 'curl'), `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(curlLog)}, JSON.stringify(process.argv.slice(2)) + '\\n');\nprocess.exit(7);\n`, { mode: 0o700 });
  }
  const readLog = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return { bin, calls: (): SystemctlCall[] => readLog(log), curlCalls: (): string[][] => readLog(curlLog) };
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the helper without blocking the event loop (an in-process gateway must keep answering). */
async function runHelper(args: string[], options: { bin: string; env?: Record<string, string>; path?: string }): Promise<Run> {
  const child = spawn(bash, [script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so a hung run is killed with all its children
    env: { ...process.env, HOME: fakeHome, HERMES_HOME: '', PATH: options.path ?? `${options.bin}:${process.env.PATH}`, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<Run>((res) => child.on('close', (status) => res({ status, stdout, stderr })));
  try {
    return await within(done, 60_000, `restart-gateway.sh ${args.join(' ')}`);
  } catch (e) {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
    throw e;
  }
}

/** The step names in the order the helper printed them (`restart-gateway.sh: <step>: ...`). */
function stepOrder(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((l) => /^restart-gateway\.sh: (\w+):/.exec(l)?.[1])
    .filter((s): s is string => s !== undefined && (STEPS as readonly string[]).includes(s));
}

/** A loopback stand-in for the gateway: /healthz from `health()`, /readyz 200; records requests. */
async function fakeGateway(health: () => Record<string, unknown>): Promise<{ url: string; requests: string[]; port: number }> {
  const requests: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req.url ?? '');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/healthz') send(200, health());
    else if (req.url === '/readyz') send(200, { status: 'ready' });
    else send(404, { error: 'NOT_FOUND' });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  cleanups.push(() => new Promise<void>((res) => server.close(() => res())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, port };
}

function jobDatabase(dir: string): { path: string; db: JobDatabase } {
  const path = join(dir, 'gateway-jobs.sqlite3');
  const db = openJobDatabase(path);
  cleanups.push(() => db.close());
  return { path, db };
}

function addActiveJob(dir: string, db: JobDatabase): string {
  const workdir = join(dir, 'work');
  const p = prepareJob(db, { command: 'sleep 600', workdir, maxRuntime: 600, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'owner-test' }, { maxPrepared: 10, ttlMs: 60_000 }, Date.now());
  admitJob(db, { id: p.job_id, token: p.recovery_token!, sessionId: 'session-test', instance: INSTANCE, unit: 'unit-test' }, RULES, Date.now());
  return p.job_id;
}

const snapshotsIn = (dir: string) => readdirSync(dir).filter((f) => /\.pre-restart-\d{8}T\d{6}Z\.sqlite3$/.test(f));

function assertValidSnapshot(path: string): void {
  assert.equal(statSync(path).mode & 0o777, 0o600, 'the snapshot is private');
  const snap = new Database(path, { readonly: true, fileMustExist: true });
  try {
    assert.equal(snap.pragma('integrity_check', { simple: true }), 'ok');
    assert.equal((snap.prepare('SELECT count(*) AS n FROM admission_gate').get() as { n: number }).n, 1);
    snap.prepare('SELECT count(*) AS n FROM jobs').get();
  } finally {
    snap.close();
  }
}

test('happy path on a real gateway: snapshot, drain, idle, restart, ready, resume, in that order', async () => {
  const gw = await startTestGateway();
  cleanups.push(() => gw.close());
  const dir = freshDir('happy');
  const { path: tokenPath, token } = tokenFile(dir);
  const database = join(gw.home, 'gateway-jobs.sqlite3');
  const fake = fakeBin(dir, database);

  // No --database: the default $HERMES_HOME/gateway-jobs.sqlite3; no --snapshot: next to it.
  const r = await runHelper(['--owner-token-file', tokenPath, '--url', gw.url, '--user', '--idle-timeout', '10', '--ready-timeout', '10', '--drain-timeout', '10'], {
    bin: fake.bin,
    env: { HERMES_HOME: gw.home },
  });
  assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.deepEqual(stepOrder(r.stdout), [...STEPS], r.stdout);
  assert.match(r.stdout, /^restart-gateway\.sh: preflight: .*0 in-flight requests, 0 in-flight native calls/m);

  const calls = fake.calls();
  assert.equal(calls.length, 1, JSON.stringify(calls));
  assert.deepEqual(calls[0]!.argv, ['--user', 'restart', 'hermes-mcp-gateway.service']);
  assert.equal(calls[0]!.paused, true, 'the unit is restarted while admission is drained and paused');

  const snaps = snapshotsIn(gw.home);
  assert.equal(snaps.length, 1, `one snapshot next to the database: ${readdirSync(gw.home).join(', ')}`);
  assert.match(snaps[0]!, /^gateway-jobs\.pre-restart-\d{8}T\d{6}Z\.sqlite3$/);
  assertValidSnapshot(join(gw.home, snaps[0]!));

  const db = openJobDatabase(database, { create: false });
  try {
    assert.equal(gateState(db).paused, false, 'admission is reopened at the end');
  } finally {
    db.close();
  }
  assert.ok(!(r.stdout + r.stderr).includes(token), 'the owner token is never printed');
});

test('waits for in-flight work to reach zero before restarting; the token never reaches a command line', async () => {
  const dir = freshDir('inflight');
  const { path: database, db } = jobDatabase(dir);
  const { path: tokenPath, token } = tokenFile(dir);
  const fake = fakeBin(dir, database);
  // Busy until the helper has polled /healthz a few times after the preflight.
  let polls = 0;
  let idleSince = 0;
  const gw = await fakeGateway(() => {
    polls++;
    const busy = polls < 5;
    if (!busy && !idleSince) idleSince = Date.now();
    return { status: 'ok', inflight_requests: busy ? 1 : 0, inflight_native_calls: busy ? 2 : 0 };
  });
  // A recording wrapper around the real CLI: what the process's real command line and its
  // in-memory argv were for each subcommand.
  const cliLog = join(dir, 'cli.jsonl');
  const wrapper = join(dir, 'recording-admission.mjs');
  writeFileSync(
    wrapper,
    `import { appendFileSync, readFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(cliLog)}, JSON.stringify({ cmdline: readFileSync('/proc/self/cmdline', 'utf8').split('\\0'), argv: process.argv }) + '\\n');
await import(${JSON.stringify(new URL(`file://${realCli}`).href)});
`,
  );
  const r = await runHelper(['--owner-token-file', tokenPath, '--database', database, '--url', gw.url, '--idle-timeout', '20', '--ready-timeout', '5', '--drain-timeout', '5', '--admission-cli', wrapper], { bin: fake.bin });
  assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.deepEqual(stepOrder(r.stdout), [...STEPS], r.stdout);
  assert.match(r.stdout, /preflight: .*1 in-flight requests, 2 in-flight native calls/);
  const calls = fake.calls();
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0]!.argv, ['--user', 'restart', 'hermes-mcp-gateway.service'], 'the default mode is --user');
  assert.ok(idleSince > 0 && calls[0]!.at >= idleSince, 'restarted only after /healthz showed zero in-flight work');
  assert.equal(gateState(db).paused, false);

  const invocations = readFileSync(cliLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { cmdline: string[]; argv: string[] });
  assert.deepEqual(invocations.map((i) => i.argv[2]), ['snapshot', 'drain', 'resume']);
  for (const inv of invocations) {
    assert.ok(!inv.cmdline.join(' ').includes(token), `the token is not on the command line of ${inv.argv[2]}`);
    if (inv.argv[2] !== 'snapshot') assert.equal(inv.argv[inv.argv.indexOf('--owner-token-file') + 1], tokenPath, 'the CLI reads the token from the private file');
  }
});

test('a legacy /healthz without the in-flight counters is refused unless acknowledged', async () => {
  const dir = freshDir('legacy');
  const { path: database, db } = jobDatabase(dir);
  const { path: tokenPath } = tokenFile(dir);
  const fake = fakeBin(dir, database);
  const gw = await fakeGateway(() => ({ status: 'ok', uptime_seconds: 42, catalog_size: 3 }));
  const base = ['--owner-token-file', tokenPath, '--database', database, '--url', gw.url, '--ready-timeout', '5', '--drain-timeout', '5'];

  const refused = await runHelper(base, { bin: fake.bin });
  assert.equal(refused.status, 5, refused.stderr);
  assert.match(refused.stderr, /legacy gateway cannot be measured idle/);
  assert.match(refused.stderr, /--acknowledge-unmeasured-inflight/);
  assert.deepEqual(fake.calls(), [], 'systemctl was never called');
  assert.deepEqual(snapshotsIn(dir), [], 'nothing was done: no snapshot');
  assert.equal(gateState(db).paused, false, 'nothing was done: admission untouched');

  // Acknowledged: it proceeds (system mode, a custom unit), skipping only the idle measurement.
  // Run with a PATH that has no curl, so the node HTTP fallback is exercised too.
  const path = minimalPath(dir, fake.bin);
  const ok = await runHelper([...base, '--acknowledge-unmeasured-inflight', '--system', '--unit', 'hermes-custom.service'], { bin: fake.bin, path });
  assert.equal(ok.status, 0, `stdout:\n${ok.stdout}\nstderr:\n${ok.stderr}`);
  assert.deepEqual(stepOrder(ok.stdout), [...STEPS], ok.stdout);
  assert.match(ok.stdout, /^restart-gateway\.sh: idle: skipped/m);
  const calls = fake.calls();
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0]!.argv, ['restart', 'hermes-custom.service'], '--system: no --user');
  assert.equal(calls[0]!.paused, true);
  assert.equal(snapshotsIn(dir).length, 1);
  assertValidSnapshot(join(dir, snapshotsIn(dir)[0]!));
  assert.equal(gateState(db).paused, false);
  assert.ok(gw.requests.includes('/readyz'), 'readiness was checked through the node fallback');
});

/** A PATH of only the tools the helper needs (no curl), each linked into its own directory. */
function minimalPath(dir: string, fakeBinDir: string): string {
  const bin = join(dir, 'minimal-bin');
  mkdirSync(bin, { mode: 0o700 });
  for (const tool of ['node', 'stat', 'id', 'date', 'dirname', 'basename', 'sed', 'sleep', 'cat']) {
    const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    assert.ok(found, `${tool} is on PATH`);
    symlinkSync(found, join(bin, tool));
  }
  return `${fakeBinDir}:${bin}`;
}

test('drain timeout aborts: no restart, no job cancelled, admission left paused (until --resume-only)', async () => {
  const dir = freshDir('drain-timeout');
  const { path: database, db } = jobDatabase(dir);
  const jobId = addActiveJob(dir, db);
  const { path: tokenPath } = tokenFile(dir);
  const fake = fakeBin(dir, database);
  const gw = await fakeGateway(() => ({ status: 'ok', inflight_requests: 0, inflight_native_calls: 0 }));

  const r = await runHelper(['--owner-token-file', tokenPath, '--database', database, '--url', gw.url, '--drain-timeout', '1'], { bin: fake.bin });
  assert.equal(r.status, 3, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stderr, /drain timed out/);
  assert.match(r.stderr, /NOT restarted/);
  assert.match(r.stderr, /stays PAUSED/);
  assert.ok(r.stderr.includes(jobId), 'the still-active job is named');
  assert.deepEqual(stepOrder(r.stdout), ['snapshot', 'drain']);
  assert.deepEqual(fake.calls(), [], 'systemctl was never called');
  const job = getJob(db, jobId)!;
  assert.equal(job.state, 'starting', 'the job is untouched');
  assert.equal(job.cancel_requested, 0, 'no cancellation was requested');
  assert.equal(gateState(db).paused, true, 'admission stays paused for the operator');
  assert.equal(snapshotsIn(dir).length, 1, 'the snapshot came first');

  // After investigating, the operator reopens admission with the same token file.
  const resumed = await runHelper(['--resume-only', '--owner-token-file', tokenPath, '--database', database], { bin: fake.bin });
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.equal(gateState(db).paused, false);
  assert.equal(getJob(db, jobId)!.state, 'starting');
  assert.deepEqual(fake.calls(), []);
});

test('idle timeout aborts without restarting and leaves admission paused', async () => {
  const dir = freshDir('idle-timeout');
  const { path: database, db } = jobDatabase(dir);
  const { path: tokenPath } = tokenFile(dir);
  const fake = fakeBin(dir, database);
  const gw = await fakeGateway(() => ({ status: 'ok', inflight_requests: 0, inflight_native_calls: 1 }));
  const r = await runHelper(['--owner-token-file', tokenPath, '--database', database, '--url', gw.url, '--idle-timeout', '1', '--drain-timeout', '5'], { bin: fake.bin });
  assert.equal(r.status, 4, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stderr, /did not become idle within 1 s \(last: 0 in-flight requests, 1 in-flight native calls\)/);
  assert.match(r.stderr, /NOT restarted/);
  assert.deepEqual(stepOrder(r.stdout), ['snapshot', 'drain', 'idle']);
  assert.deepEqual(fake.calls(), []);
  assert.equal(gateState(db).paused, true);
});

test('an owner token file readable by group or others is refused before anything', async () => {
  for (const mode of [0o640, 0o604, 0o660]) {
    const dir = freshDir(`token-${mode.toString(8)}`);
    const { path: database, db } = jobDatabase(dir);
    const { path: tokenPath, token } = tokenFile(dir, mode);
    const fake = fakeBin(dir, database);
    const gw = await fakeGateway(() => ({ status: 'ok', inflight_requests: 0, inflight_native_calls: 0 }));
    const r = await runHelper(['--owner-token-file', tokenPath, '--database', database, '--url', gw.url], { bin: fake.bin });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`mode ${mode.toString(8)}: group or others can access it; run chmod 600`));
    assert.ok(!(r.stdout + r.stderr).includes(token));
    assert.deepEqual(gw.requests, [], 'not even /healthz was asked');
    assert.deepEqual(fake.calls(), []);
    assert.deepEqual(snapshotsIn(dir), []);
    assert.equal(gateState(db).paused, false);
  }
});

test('the owner token is never accepted on the command line, and the token file is required', async () => {
  const dir = freshDir('token-argv');
  const { path: database } = jobDatabase(dir);
  const fake = fakeBin(dir, database);
  const inline = await runHelper(['--owner-token', 'a'.repeat(40), '--database', database], { bin: fake.bin });
  assert.equal(inline.status, 2);
  assert.match(inline.stderr, /never taken on the command line/);
  const missing = await runHelper(['--database', database], { bin: fake.bin });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--owner-token-file is required/);
  assert.deepEqual(fake.calls(), []);
});

test('a non-loopback --url is refused without any request', async () => {
  const dir = freshDir('url');
  const { path: database, db } = jobDatabase(dir);
  const { path: tokenPath } = tokenFile(dir);
  // Both curl and systemctl are fakes here: even a wrongly accepted URL could reach no network.
  const fake = fakeBin(dir, database, { fakeCurl: true });
  const gw = await fakeGateway(() => ({ status: 'ok', inflight_requests: 0, inflight_native_calls: 0 }));
  const urls = [
    `http://0.0.0.0:${gw.port}`,
    'http://192.0.2.10:3060',
    'http://example.com:3060',
    'http://127.0.0.1.example.com:3060',
    'http://127.0.0.1@example.com:3060',
    `https://127.0.0.1:${gw.port}`,
    `http://127.0.0.1:${gw.port}/mcp`,
  ];
  for (const url of urls) {
    const r = await runHelper(['--owner-token-file', tokenPath, '--database', database, '--url', url], { bin: fake.bin });
    assert.equal(r.status, 2, `${url}: ${r.stderr}`);
    assert.match(r.stderr, /--url must be a loopback http URL/, url);
  }
  assert.deepEqual(fake.curlCalls(), [], 'no HTTP request was attempted');
  assert.deepEqual(gw.requests, []);
  assert.deepEqual(fake.calls(), []);
  assert.deepEqual(snapshotsIn(dir), []);
  assert.equal(gateState(db).paused, false);
});

test('--help documents the options and the exit codes', async () => {
  const dir = freshDir('help');
  const fake = fakeBin(dir, null);
  const r = await runHelper(['--help'], { bin: fake.bin });
  assert.equal(r.status, 0);
  for (const opt of ['--database', '--owner-token-file', '--snapshot', '--url', '--user', '--system', '--unit', '--drain-timeout', '--idle-timeout', '--ready-timeout', '--acknowledge-unmeasured-inflight', '--admission-cli']) {
    assert.ok(r.stdout.includes(opt), `--help mentions ${opt}`);
  }
  for (const code of ['0', '1', '2', '3', '4', '5', '6']) assert.match(r.stdout, new RegExp(`^  ${code}  `, 'm'), `exit code ${code} documented`);
  assert.deepEqual(fake.calls(), []);
});
