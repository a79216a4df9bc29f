// The operator CLI (dist/bin/admission.js) as a real child process against a real job database:
// the gate it claims is the one admitJob checks, drains fail closed, only the pausing token
// resumes, snapshots are private consistent copies, and nothing secret is ever printed.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { admitJob, finishJob, gateState, hashSecret, pauseAdmission, prepareJob, type AdmissionRules, type Instance } from '../../../../supervisor/tools/jobs/store/index.js';
import Database from 'better-sqlite3';
import { openJobDatabase, type JobDatabase } from '../../../../supervisor/tools/jobs/store/index.js';
import { OLDER_JOB_SCHEMA, olderJobDatabase } from '../../../helpers/job-database.js';
import { packageRoot } from '../../../../shared/package-root.js';
import { waitFor, within } from '../../../helpers/wait.js';

const cli = join(packageRoot(), 'dist', 'bin', 'admission.js');
const work = mkdtempSync(join(tmpdir(), 'hermes-admission-cli-'));
const open: JobDatabase[] = [];
after(() => {
  for (const db of open) db.close();
  rmSync(work, { recursive: true, force: true });
});

const RULES: AdmissionRules = { maxActive: 4, maxPerSession: 2, maxHeavy: Infinity, memoryBudget: Infinity };
const INSTANCE: Instance = { id: 'instance-test', pid: process.pid, start: 'x' };
// A base64url token begins with '-' one time in 64. These begin with `lead` ('-' unless told) on
// purpose, so every drain and resume below passes a dash-led value, never by chance.
const ownerToken = (lead = '-') => lead + randomBytes(30).toString('base64url'); // 41 characters

interface Fixture {
  dir: string;
  path: string;
  db: JobDatabase;
}

let fixtures = 0;
function fixture(): Fixture {
  const dir = join(work, `t${++fixtures}`);
  mkdirSync(dir, { mode: 0o700 });
  const path = join(dir, 'jobs.sqlite3');
  const db = openJobDatabase(path);
  open.push(db);
  return { dir, path, db };
}

/** Prepares a job (and admits it unless `admit` is false); returns its id, recovery token and command. */
function addJob(f: Fixture, name: string, admit = true): { id: string; token: string; command: string } {
  const command = `echo cmd-${randomBytes(8).toString('hex')}`;
  const prep = { command, workdir: join(f.dir, name), maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'owner-test' };
  const p = prepareJob(f.db, prep, { maxPrepared: 10, ttlMs: 60_000 }, Date.now());
  const token = p.recovery_token!;
  if (admit) admitJob(f.db, { id: p.job_id, token, sessionId: 'session-test', instance: INSTANCE, unit: 'unit-test' }, RULES, Date.now());
  return { id: p.job_id, token, command };
}

function run(...args: string[]) {
  return runIn(undefined, ...args);
}

/** The CLI run from `cwd` (so relative paths beginning with '-' can be passed). */
function runIn(cwd: string | undefined, ...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 20_000, ...(cwd ? { cwd } : {}) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function runAsync(...args: string[]) {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((res) => child.on('close', (status) => res({ status, stdout, stderr })));
  return { child, done: within(done, 20_000, 'the admission CLI to exit') };
}

test('status prints the gate, job counts and active jobs for humans', () => {
  const f = fixture();
  const job = addJob(f, 'a');
  addJob(f, 'b', false);
  pauseAdmission(f.db, ownerToken(), 'kernel update', Date.now());
  const r = run('status', '--database', f.path);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^admission: paused since \d{4}-\d\d-\d\dT.*\(reason: kernel update\)$/m);
  assert.match(r.stdout, /^jobs: .*prepared 1/m);
  assert.match(r.stdout, /^jobs: .*starting 1/m);
  assert.ok(r.stdout.includes(`${job.id}  starting  ${join(f.dir, 'a')}  started `), r.stdout);
});

test('status --json prints one object with the same facts', () => {
  const f = fixture();
  const job = addJob(f, 'a');
  addJob(f, 'b', false);
  const r = run('status', '--database', f.path, '--json');
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual({ paused: s.paused, paused_at: s.paused_at, reason: s.reason, counts: s.counts }, { paused: false, paused_at: null, reason: null, counts: { prepared: 1, starting: 1 } });
  assert.equal(s.active_jobs.length, 1);
  assert.deepEqual(Object.keys(s.active_jobs[0]).sort(), ['deadline', 'id', 'started_at', 'state', 'workdir']);
  assert.equal(s.active_jobs[0].id, job.id);
  assert.equal(s.active_jobs[0].workdir, join(f.dir, 'a'));
  assert.ok(Date.parse(s.active_jobs[0].deadline) > Date.parse(s.active_jobs[0].started_at));
});

test('status never prints tokens, token hashes or commands', () => {
  const f = fixture();
  const admitted = addJob(f, 'a');
  const prepared = addJob(f, 'b', false); // its command is still stored
  const owner = ownerToken();
  pauseAdmission(f.db, owner, 'maintenance', Date.now());
  const secrets = [admitted.token, prepared.token, owner, admitted.command, prepared.command].flatMap((s) => [s, hashSecret(s)]);
  for (const args of [[], ['--json']]) {
    const r = run('status', '--database', f.path, ...args);
    assert.equal(r.status, 0, r.stderr);
    for (const secret of secrets) assert.ok(!(r.stdout + r.stderr).includes(secret), `status ${args} printed a secret`);
  }
});

test('drain with no active job succeeds at once and leaves admission paused (prepared jobs do not block)', () => {
  const f = fixture();
  addJob(f, 'a', false);
  const r = run('drain', '--database', f.path, '--owner-token', ownerToken(), '--reason', 'reboot');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'drained\n');
  assert.deepEqual({ ...gateState(f.db), paused_at: null }, { paused: true, paused_at: null, reason: 'reboot' });
});

test('drain times out with exit 3 naming the active job, and admission stays paused', () => {
  const f = fixture();
  const job = addJob(f, 'a');
  const r = run('drain', '--database', f.path, '--owner-token', ownerToken(), '--timeout', '1');
  assert.equal(r.status, 3);
  assert.match(r.stderr, /^DRAIN_TIMEOUT: 1 job\(s\) still active/);
  assert.ok(r.stderr.includes(job.id));
  assert.equal(gateState(f.db).paused, true);
});

test('drain succeeds once the last active job finishes while it waits', async () => {
  const f = fixture();
  const job = addJob(f, 'a');
  const drain = runAsync('drain', '--database', f.path, '--owner-token', ownerToken(), '--timeout', '20');
  await waitFor(() => gateState(f.db).paused, 10_000, 'the CLI to pause admission');
  // It looks again every 250 ms: past its next look it must still be waiting (the job is active).
  await assert.rejects(within(drain.done, 300, 'drain to exit'), /timed out/, 'drain must still be waiting for the active job');
  assert.equal(finishJob(f.db, job.id, { state: 'succeeded', exitCode: 0, signal: null, reason: 'exited' }, Date.now()), true);
  const r = await drain.done;
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'drained\n');
  assert.equal(gateState(f.db).paused, true);
});

test('a second drain by another owner token is refused while paused', () => {
  const f = fixture();
  const first = ownerToken();
  pauseAdmission(f.db, first, 'first', Date.now());
  const r = run('drain', '--database', f.path, '--owner-token', ownerToken());
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^ADMISSION_GATE_HELD: /);
  const gate = f.db.prepare('SELECT owner_hash, reason FROM admission_gate').get() as { owner_hash: string; reason: string };
  assert.deepEqual(gate, { owner_hash: hashSecret(first), reason: 'first' });
});

test('resume by another owner token is refused and admission stays paused', () => {
  const f = fixture();
  pauseAdmission(f.db, ownerToken(), 'maintenance', Date.now());
  const r = run('resume', '--database', f.path, '--owner-token', ownerToken());
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^ADMISSION_GATE_HELD: /);
  assert.equal(gateState(f.db).paused, true);
});

test('resume by the pausing token reopens admission', () => {
  const f = fixture();
  const owner = ownerToken();
  pauseAdmission(f.db, owner, 'maintenance', Date.now());
  const r = run('resume', '--database', f.path, '--owner-token', owner, '--json');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { resumed: true, paused: false });
  assert.equal(gateState(f.db).paused, false);
});

test('resume when admission is not paused says so and exits 0', () => {
  const f = fixture();
  const r = run('resume', '--database', f.path, '--owner-token', ownerToken());
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'admission was not paused\n');
});

test('an owner token beginning with "-", "--" or a letter is taken as the value, as --owner-token T and as --owner-token=T', () => {
  const f = fixture();
  const separate = (t: string) => ['--owner-token', t];
  const joined = (t: string) => [`--owner-token=${t}`];
  for (const [lead, form] of [['-', separate], ['--', separate], ['-h', separate], ['A', separate], ['-', joined]] as const) {
    const owner = ownerToken(lead);
    const drained = run('drain', '--database', f.path, ...form(owner), '--timeout', '1');
    assert.equal(drained.status, 0, `drain with ${form('T').join(' ')} (token led by ${lead}): ${drained.stderr}`);
    assert.equal(gateState(f.db).paused, true);
    const resumed = run('resume', '--database', f.path, ...form(owner), '--json');
    assert.equal(resumed.status, 0, `resume with ${form('T').join(' ')} (token led by ${lead}): ${resumed.stderr}`);
    assert.deepEqual(JSON.parse(resumed.stdout), { resumed: true, paused: false });
  }
});

test('every option value may begin with "-": --database, --owner-token-file, --reason and --output', () => {
  const f = fixture();
  const owner = ownerToken();
  writeFileSync(join(f.dir, '-owner-token'), `${owner}\n`, { mode: 0o600 });
  const db = `-${randomBytes(4).toString('hex')}.sqlite3`;
  open.push(openJobDatabase(join(f.dir, db)));
  const drained = runIn(f.dir, 'drain', '--database', db, '--owner-token-file', '-owner-token', '--reason', '-kernel update', '--timeout', '1');
  assert.equal(drained.status, 0, drained.stderr);
  assert.equal(gateState(open.at(-1)!).reason, '-kernel update');
  const snap = runIn(f.dir, 'snapshot', '--database', db, '--output', '-snap.sqlite3');
  assert.equal(snap.status, 0, snap.stderr);
  assert.equal(statSync(join(f.dir, '-snap.sqlite3')).mode & 0o7777, 0o600);
  assert.equal(runIn(f.dir, 'resume', '--database', db, '--owner-token-file', '-owner-token').status, 0);
  assert.equal(gateState(open.at(-1)!).paused, false);
});

test('an owner token of the wrong shape is a usage error (exit 2) and claims nothing', () => {
  const f = fixture();
  for (const cmd of ['drain', 'resume']) {
    for (const bad of ['short', '--json', `${'a'.repeat(40)} space`, 'a'.repeat(129)]) {
      const r = run(cmd, '--database', f.path, '--owner-token', bad);
      assert.equal(r.status, 2, `${cmd} ${bad}`);
      assert.match(r.stderr, /^INVALID_ARGUMENTS: --owner-token must be 32-128 characters/);
    }
  }
  assert.equal(gateState(f.db).paused, false);
});

test('snapshot writes a consistent, readable 0600 copy', () => {
  const f = fixture();
  addJob(f, 'a');
  addJob(f, 'b', false);
  pauseAdmission(f.db, ownerToken(), 'backup', Date.now());
  const out = join(f.dir, 'snap.sqlite3');
  const r = run('snapshot', '--database', f.path, '--output', out);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(statSync(out).mode & 0o7777, 0o600);
  const copy = openJobDatabase(out, { create: false });
  open.push(copy);
  assert.equal((copy.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n, 2);
  assert.deepEqual(gateState(copy), gateState(f.db));
});

test('snapshot copies an older schema as it is: neither the database nor the copy is migrated', () => {
  const dir = join(work, `t${++fixtures}`);
  mkdirSync(dir, { mode: 0o700 });
  const path = join(dir, 'jobs.sqlite3');
  const previous = OLDER_JOB_SCHEMA;
  olderJobDatabase(path);
  const out = join(dir, 'snap.sqlite3');
  const r = run('snapshot', '--database', path, '--output', out);
  assert.equal(r.status, 0, r.stderr);
  for (const file of [path, out]) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    assert.equal(db.pragma('user_version', { simple: true }), previous, file);
    db.close();
  }
});

test('snapshot refuses an output that already exists', () => {
  const f = fixture();
  const out = join(f.dir, 'snap.sqlite3');
  writeFileSync(out, 'keep me');
  const r = run('snapshot', '--database', f.path, '--output', out);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^JOB_STORE_UNAVAILABLE: snapshot .* already exists/);
  assert.equal(readFileSync(out, 'utf8'), 'keep me');
});

test('snapshot refuses an output in a group-writable directory', () => {
  const f = fixture();
  const shared = join(f.dir, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o770);
  const out = join(shared, 'snap.sqlite3');
  const r = run('snapshot', '--database', f.path, '--output', out);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^JOB_STORE_UNAVAILABLE: .*group- or world-writable/);
  assert.equal(existsSync(out), false);
});

test('a database path that is a symlink is rejected', () => {
  const f = fixture();
  const link = join(f.dir, 'link.sqlite3');
  symlinkSync(f.path, link);
  const r = run('status', '--database', link);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^JOB_STORE_UNAVAILABLE: .*symbolic link/);
});

test('a database in a group/world-writable, non-sticky directory is rejected', () => {
  const f = fixture();
  chmodSync(f.dir, 0o777);
  try {
    const r = run('status', '--database', f.path);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^JOB_STORE_UNAVAILABLE: .*group- or world-writable/);
  } finally {
    chmodSync(f.dir, 0o700);
  }
});

test('a missing database is rejected, not created', () => {
  const f = fixture();
  const missing = join(f.dir, 'missing.sqlite3');
  const r = run('status', '--database', missing);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^JOB_STORE_UNAVAILABLE: /);
  assert.equal(existsSync(missing), false);
});

test('--help / -h print usage and exit 0, on the top level and every subcommand', () => {
  for (const args of [['--help'], ['-h'], ['status', '--help'], ['drain', '-h'], ['resume', '--help'], ['snapshot', '--help']]) {
    const r = run(...args);
    assert.equal(r.status, 0, `${args}: ${r.stderr}`);
    assert.match(r.stdout, /^usage:/, args.join(' '));
    if (args.length === 2) assert.ok(r.stdout.includes(`hermes-mcp-admission ${args[0]} `), args.join(' '));
    assert.ok(r.stdout.includes('--owner-token=T always works'), `${args.join(' ')}: ${r.stdout}`);
  }
});

test('a missing or unknown subcommand, a flag from another subcommand or a bad value is a usage error (exit 2)', () => {
  const f = fixture();
  for (const args of [
    [],
    ['pause'],
    ['status', '--database', f.path, '--owner-token', ownerToken()],
    ['status', '--database', ''],
    ['drain', '--database', f.path, '--owner-token', ownerToken(), '--timeout', '0'],
    ['status', '--database', f.path, 'extra'],
    ['drain', '--database', f.path, '--owner-token'],
    ['status', '--database', f.path, '--json=yes'],
    ['status', '--database', f.path, '-x'],
  ]) {
    const r = run(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /^INVALID_ARGUMENTS: /);
  }
  assert.equal(gateState(f.db).paused, false);
});

test('--owner-token-file: a private file works for drain and resume; a readable, foreign-mode or linked file is refused', () => {
  const f = fixture();
  const owner = ownerToken();
  const file = join(f.dir, 'owner-token');
  writeFileSync(file, `${owner}\n`, { mode: 0o600 });
  const drained = run('drain', '--database', f.path, '--owner-token-file', file, '--timeout', '1');
  assert.equal(drained.status, 0, drained.stderr);
  assert.equal(gateState(f.db).paused, true);
  // The file's token is the same owner as the literal token.
  assert.equal(run('resume', '--database', f.path, '--owner-token', ownerToken()).status, 1);
  for (const mode of [0o640, 0o604]) {
    chmodSync(file, mode);
    const r = run('resume', '--database', f.path, '--owner-token-file', file);
    assert.equal(r.status, 2, `mode ${mode.toString(8)}`);
    assert.match(r.stderr, /group or others can access it/);
  }
  chmodSync(file, 0o600);
  const link = join(f.dir, 'token-link');
  symlinkSync(file, link);
  assert.match(run('resume', '--database', f.path, '--owner-token-file', link).stderr, /not a regular file/);
  assert.equal(run('resume', '--database', f.path, '--owner-token-file', file, '--owner-token', owner).status, 2, 'not both');
  assert.equal(gateState(f.db).paused, true, 'nothing above reopened it');
  const resumed = run('resume', '--database', f.path, '--owner-token-file', file);
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.equal(gateState(f.db).paused, false);
});

/** The CLI with `env` as its whole environment (plus PATH), so no default can reach a real database. */
function runWithEnv(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--database defaults to the gateway\'s own: $HERMES_MCP_JOBS_DATABASE, else $HERMES_HOME/gateway-jobs.sqlite3', () => {
  const f = fixture(); // <dir>/jobs.sqlite3
  const home = join(f.dir, 'home');
  mkdirSync(home, { mode: 0o700 });
  const g = openJobDatabase(join(home, 'gateway-jobs.sqlite3'));
  open.push(g);
  pauseAdmission(g, ownerToken(), 'home database', Date.now());
  const fromHome = runWithEnv({ HERMES_HOME: home, HOME: home }, 'status', '--json');
  assert.equal(fromHome.status, 0, fromHome.stderr);
  assert.equal(JSON.parse(fromHome.stdout).reason, 'home database');
  const fromSetting = runWithEnv({ HERMES_HOME: home, HOME: home, HERMES_MCP_JOBS_DATABASE: f.path }, 'status', '--json');
  assert.equal(fromSetting.status, 0, fromSetting.stderr);
  assert.equal(JSON.parse(fromSetting.stdout).paused, false, 'HERMES_MCP_JOBS_DATABASE wins over HERMES_HOME');
  // A default that does not exist is an error, never a new empty database.
  const missing = runWithEnv({ HERMES_HOME: join(f.dir, 'nowhere'), HOME: home }, 'status');
  assert.equal(missing.status, 1);
  assert.equal(existsSync(join(f.dir, 'nowhere', 'gateway-jobs.sqlite3')), false);
});

test('--help says what the owner token is, how to make one, where the database is and how to run the CLI from a checkout', () => {
  for (const args of [['--help'], ['drain', '--help']]) {
    const r = run(...args);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /owner token is a secret you create: 32-128 characters/);
    assert.match(r.stdout, /head -c 33 \/dev\/urandom \| base64 > ~\/\.config\/hermes\/admission-token/);
    assert.match(r.stdout, /--database defaults to \$HERMES_MCP_JOBS_DATABASE, else \$HERMES_HOME\/gateway-jobs\.sqlite3/);
    assert.match(r.stdout, /npm run admission -- ARGS, or node dist\/bin\/admission\.js ARGS/);
  }
});

test('the token recipe in --help makes a token the CLI accepts', () => {
  const f = fixture();
  const file = join(f.dir, 'made-token');
  const made = spawnSync('bash', ['-c', `(umask 077; head -c 33 /dev/urandom | base64 > '${file}')`]);
  assert.equal(made.status, 0);
  const drained = run('drain', '--database', f.path, '--owner-token-file', file, '--timeout', '1');
  assert.equal(drained.status, 0, drained.stderr);
  assert.equal(run('resume', '--database', f.path, '--owner-token-file', file).status, 0);
});

test('a token file\'s problems are named together, under --owner-token-file, and a missing one says how to create it', () => {
  const f = fixture();
  const missing = run('resume', '--database', f.path, '--owner-token-file', join(f.dir, 'absent'));
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--owner-token-file \S+absent does not exist\. The owner token is a secret you create/);
  assert.match(missing.stderr, /head -c 33 \/dev\/urandom/);
  const bad = join(f.dir, 'bad-token');
  writeFileSync(bad, 'short\n');
  chmodSync(bad, 0o644);
  const r = run('drain', '--database', f.path, '--owner-token-file', bad);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^INVALID_ARGUMENTS: --owner-token-file \S+bad-token: it has mode 644, .*; its first line is not a token of 32-128 characters/);
  assert.doesNotMatch(r.stderr, /--owner-token must/);
  assert.equal(gateState(f.db).paused, false);
});
