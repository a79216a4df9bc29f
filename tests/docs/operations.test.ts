import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { packageRoot } from '../../shared/package-root.js';
import { SCHEMA_VERSION } from '../../supervisor/tools/jobs/store/index.js';
import { OLDER_JOB_SCHEMA, olderJobDatabase } from '../helpers/job-database.js';
import { prepareJob } from '../../supervisor/tools/jobs/store/index.js';
import { authCli } from '../helpers/auth.js';
import { makeHermesHome, optionalComponents, viaBridge } from '../helpers/gateway.js';
import { openSession, waitForFinal, workdirIn, type JobCredential } from '../helpers/jobs.js';
import { freePort } from '../helpers/nginx.js';
import { markedBlocks } from '../helpers/readme.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor, within } from '../helpers/wait.js';

// docs/operations.md's Upgrade, Backup and restore, and Removal blocks, run as written by bash
// (only the default port replaced) from their docs-check markers, so the page and what works
// cannot drift apart. The bins are this checkout's (`hermes-mcp-admission`, `hermes-mcp-gateway`,
// `hermes-mcp-auth` on PATH, as an installed package names them), SQLite is real, and the gateway
// is the real bin. `systemctl` is a FAKE first on PATH, never a systemd manager: it keeps the units'
// enabled/active state in a file and, for `start`/`stop` of hermes-mcp-gateway, runs the real gateway
// bin as the unit's ExecStart would (SIGTERM to stop). The steps that need a network or another
// release (`git`, `npm`, `scripts/install.sh`) are fakes that record their arguments.

const dirs = tempDirs();
const started: number[] = [];
after(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  dirs.removeAll();
});

const DOC = 'docs/operations.md';
const DIST = join(packageRoot(), 'dist');

interface Stand {
  /** The fake user's HOME (~/backups lives here). */
  home: string;
  /** HERMES_HOME. */
  hermesHome: string;
  port: number;
  /** The environment the blocks run with. */
  env: Record<string, string>;
  /** Every call of the fakes, in order: [tool, ...argv]. */
  calls(): string[][];
  /** The fake systemd state of the units. */
  state(): { enabled: string[]; active: string[] };
  /** Whether `systemctl start` runs the gateway (false: only records, as for an earlier release that is not here). */
  serviceRuns(on: boolean): void;
  /** The MCP URL of the running service. */
  mcpUrl: string;
  /** A checkout directory whose `scripts/install.sh` is a fake (the cwd for the upgrade blocks). */
  checkout: string;
  paths: { bin: string; log: string; stateFile: string; pidFile: string; runsFile: string; gatewayLog: string };
}

/** The fakes and bins on a PATH, a fake user, and the unit's environment for the gateway. */
function stand(hermesHome: string, options: { enabled?: string[]; active?: string[] } = {}): Stand {
  const root = dirs.make('hmcp-ops-');
  const home = join(root, 'home');
  const bin = join(root, 'bin');
  const checkout = join(root, 'checkout');
  for (const d of [home, bin, join(checkout, 'scripts')]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const log = join(root, 'calls.jsonl');
  const stateFile = join(root, 'systemd-state.json');
  const pidFile = join(root, 'gateway.pid');
  const runsFile = join(root, 'service-runs');
  const gatewayLog = join(root, 'gateway.log');
  writeFileSync(stateFile, JSON.stringify({ enabled: options.enabled ?? [], active: options.active ?? [] }));
  writeFileSync(runsFile, '1');
  for (const [name, target] of [['hermes-mcp-admission', 'admission.js'], ['hermes-mcp-gateway', 'gateway.js'], ['hermes-mcp-auth', 'auth.js']] as const) {
    symlinkSync(join(DIST, 'bin', target), join(bin, name));
  }
  const recorder = (tool: string) => `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify([${JSON.stringify(tool)}, ...process.argv.slice(2)]) + '\\n');\n`;
  writeFileSync(join(bin, 'git'), recorder('git'), { mode: 0o700 });
  writeFileSync(join(bin, 'npm'), recorder('npm'), { mode: 0o700 });
  writeFileSync(join(checkout, 'scripts', 'install.sh'), recorder('scripts/install.sh'), { mode: 0o700 });
  const env: Record<string, string> = {
    PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    HERMES_HOME: hermesHome,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_RUNTIME_DIR: join(root, 'run'),
    // The stand's own: the documented removal also clears $TMPDIR/hermes-mcp-gateway-<uid>, which
    // under the shared /tmp is the state directory of every other gateway this suite runs.
    TMPDIR: join(root, 'tmp'),
  };
  mkdirSync(env.XDG_RUNTIME_DIR!, { mode: 0o700 });
  mkdirSync(env.TMPDIR!, { mode: 0o700 });
  return {
    home,
    hermesHome,
    port: 0,
    env,
    checkout,
    mcpUrl: '',
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]) : []),
    state: () => JSON.parse(readFileSync(stateFile, 'utf8')) as { enabled: string[]; active: string[] },
    serviceRuns: (on) => writeFileSync(runsFile, on ? '1' : '0'),
    paths: { bin, log, stateFile, pidFile, runsFile, gatewayLog },
  };
}

/** Writes the fake systemctl; `service`: the gateway's environment under the unit, or none (start only records). */
async function withSystemctl(s: Stand, service: boolean): Promise<Stand> {
  const p = s.paths;
  const port = service ? await freePort() : 0;
  const serviceEnv = {
    PATH: s.env.PATH,
    HOME: s.home,
    HERMES_HOME: s.hermesHome,
    HERMES_MCP_HOST: '127.0.0.1',
    HERMES_MCP_PORT: String(port),
    HERMES_MCP_ROOTS: s.hermesHome,
    HERMES_MCP_STATE_DIR: join(s.env.XDG_RUNTIME_DIR!, 'hermes-mcp-gateway'),
    HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(),
    HERMES_MANAGED_DIR: join(s.hermesHome, 'no-managed-scope'),
    HERMES_MCP_LOG_FORMAT: 'json',
  };
  writeFileSync(
    join(p.bin, 'systemctl'),
    `#!${process.execPath}
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const argv = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(p.log)}, JSON.stringify(['systemctl', ...argv]) + '\\n');
const args = argv.filter((a) => a !== '--user' && a !== '--now' && a !== '--quiet');
const now = argv.includes('--now');
const [verb, ...units] = args;
const names = units.map((u) => u.replace(/\\.service$/, ''));
const state = JSON.parse(fs.readFileSync(${JSON.stringify(p.stateFile)}, 'utf8'));
const save = () => fs.writeFileSync(${JSON.stringify(p.stateFile)}, JSON.stringify(state));
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
function start(name) {
  if (!state.active.includes(name)) state.active.push(name);
  save();
  if (name !== 'hermes-mcp-gateway' || fs.readFileSync(${JSON.stringify(p.runsFile)}, 'utf8') !== '1' || ${service ? 'false' : 'true'}) return;
  const out = fs.openSync(${JSON.stringify(p.gatewayLog)}, 'a');
  const child = spawn(${JSON.stringify(process.execPath)}, [${JSON.stringify(join(DIST, 'bin', 'gateway.js'))}], { env: ${JSON.stringify(serviceEnv)}, cwd: ${JSON.stringify(packageRoot())}, detached: true, stdio: ['ignore', out, out] });
  fs.writeFileSync(${JSON.stringify(p.pidFile)}, String(child.pid));
  child.unref();
}
async function stop(name) {
  state.active = state.active.filter((n) => n !== name);
  save();
  if (name !== 'hermes-mcp-gateway' || !fs.existsSync(${JSON.stringify(p.pidFile)})) return;
  const pid = Number(fs.readFileSync(${JSON.stringify(p.pidFile)}, 'utf8'));
  fs.rmSync(${JSON.stringify(p.pidFile)});
  if (!alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 250 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}
(async () => {
  switch (verb) {
    case 'start': for (const n of names) start(n); break;
    case 'stop': for (const n of names) await stop(n); break;
    case 'enable': for (const n of names) { if (!state.enabled.includes(n)) state.enabled.push(n); } save(); if (now) for (const n of names) start(n); break;
    case 'disable': state.enabled = state.enabled.filter((n) => !names.includes(n)); save(); if (now) for (const n of names) await stop(n); break;
    case 'daemon-reload': break;
    case 'is-active': { const a = state.active.includes(names[0]); console.log(a ? 'active' : 'inactive'); process.exit(a ? 0 : 3); }
    case 'is-enabled': { const e = state.enabled.includes(names[0]); console.log(e ? 'enabled' : 'disabled'); process.exit(e ? 0 : 1); }
    default: process.exit(1);
  }
})();
`,
    { mode: 0o700 },
  );
  return { ...s, port, mcpUrl: `http://127.0.0.1:${port}/mcp` };
}

/** Runs a documented block through bash (only the default port replaced); its exit code and output. */
async function runBlock(s: Stand, block: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = s.port ? block.replaceAll('127.0.0.1:3060', `127.0.0.1:${s.port}`) : block;
  const child = spawn('bash', ['-c', script], { cwd, env: s.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await within(new Promise<number | null>((resolve) => child.once('close', resolve)), 120_000, 'a documented block');
  return { code, stdout, stderr };
}

/** Waits for the service's /healthz; remembers its pid for the final cleanup. */
async function serviceUp(s: Stand): Promise<void> {
  const pidFile = s.paths.pidFile;
  await waitFor(async () => {
    try {
      return (await fetch(`http://127.0.0.1:${s.port}/healthz`)).ok;
    } catch {
      return false;
    }
  }, 60_000, 'the service to answer /healthz');
  started.push(Number(readFileSync(pidFile, 'utf8')));
}

function gatewayLog(s: Stand): string {
  const file = s.paths.gatewayLog;
  return existsSync(file) ? readFileSync(file, 'utf8').slice(-3000) : '(no log)';
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const userVersion = (path: string) => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};
const jobRows = (path: string) => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT id, command, state, workdir FROM jobs ORDER BY id').all();
  } finally {
    db.close();
  }
};

test('backup while the gateway runs, damage, restore: the jobs and the static token are back, every copy private', { timeout: 180_000 }, async () => {
  const [backup] = markedBlocks('backup', DOC);
  const [restore] = markedBlocks('restore', DOC);
  const hermesHome = makeHermesHome();
  after(() => rmSync(hermesHome, { recursive: true, force: true }));
  const s = await withSystemctl(stand(hermesHome), true);
  // What the backup block copies besides the databases: the settings and the two secrets, where the page keeps them.
  writeFileSync(join(hermesHome, '.env'), 'HERMES_MCP_LOG_LEVEL=info\n', { mode: 0o600 });
  mkdirSync(join(s.home, '.config', 'hermes'), { recursive: true, mode: 0o700 });
  writeFileSync(join(s.home, '.config', 'hermes', 'admission-token'), 'A'.repeat(44) + '\n', { mode: 0o600 });
  writeFileSync(join(s.home, '.config', 'hermes', 'consent-passphrase'), 'correct horse battery staple\n', { mode: 0o600 });
  const token = authCli(hermesHome, ['token', 'create', 'backup-check', '--json']);
  assert.equal(token.status, 0, token.stderr);

  const up = await runBlock(s, 'systemctl --user start hermes-mcp-gateway', s.checkout);
  assert.equal(up.code, 0, up.stderr);
  await serviceUp(s);
  const work = workdirIn(hermesHome, 'work');
  let finished: JobCredential;
  let prepared: JobCredential;
  {
    const { client, token: session } = await openSession(s.mcpUrl);
    const prep = await viaBridge(client, 'job_prepare', { command: 'echo backed-up', workdir: work }, session);
    assert.equal(prep.isError, false, JSON.stringify(prep.data));
    finished = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    const startAnswer = await viaBridge(client, 'job_start', finished, session);
    assert.equal(startAnswer.isError, false, JSON.stringify(startAnswer.data));
    assert.equal((await waitForFinal(client, finished)).state, 'succeeded');
    const prep2 = await viaBridge(client, 'job_prepare', { command: 'echo later', workdir: workdirIn(hermesHome, 'work2') }, session);
    prepared = { job_id: prep2.data.job_id as string, recovery_token: prep2.data.recovery_token as string };
    await client.close();
  }

  // The backup, online: the gateway keeps running.
  const b = await runBlock(s, backup!, s.checkout);
  assert.equal(b.code, 0, `backup block failed:\n${b.stdout}\n${b.stderr}`);
  const backups = readdirSync(join(s.home, 'backups'));
  assert.equal(backups.length, 1, backups.join(', '));
  const dir = join(s.home, 'backups', backups[0]!);
  assert.equal(mode(join(s.home, 'backups')), '700');
  assert.equal(mode(dir), '700');
  assert.deepEqual(readdirSync(dir).sort(), ['admission-token', 'consent-passphrase', 'gateway-auth.sqlite3', 'gateway-jobs.sqlite3', 'hermes.env']);
  for (const f of readdirSync(dir)) assert.equal(mode(join(dir, f)), '600', f);

  // A job prepared after the backup: a restore goes back to the backup's moment, so it is gone then.
  let afterBackup: JobCredential;
  {
    const { client, token: session } = await openSession(s.mcpUrl);
    const prep = await viaBridge(client, 'job_prepare', { command: 'echo after-backup', workdir: workdirIn(hermesHome, 'work3') }, session);
    afterBackup = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    await client.close();
  }

  // Stopped, the databases damaged: garbage over the job database with a stale WAL beside it, the auth database gone.
  const stop = await runBlock(s, 'systemctl --user stop hermes-mcp-gateway', s.checkout);
  assert.equal(stop.code, 0, stop.stderr);
  const jobsDb = join(hermesHome, 'gateway-jobs.sqlite3');
  writeFileSync(jobsDb, 'not a database'.repeat(100));
  writeFileSync(`${jobsDb}-wal`, 'stale'.repeat(100));
  for (const side of ['', '-wal', '-shm']) if (existsSync(join(hermesHome, `gateway-auth.sqlite3${side}`))) writeFileSync(join(hermesHome, `gateway-auth.sqlite3${side}`), '');
  assert.notEqual(authCli(hermesHome, ['token', 'list', '--json']).status, 0, 'the damaged auth database is unreadable');

  const r = await runBlock(s, restore!, s.checkout);
  assert.equal(r.code, 0, `restore block failed:\n${r.stdout}\n${r.stderr}`);
  await serviceUp(s).catch((e: unknown) => assert.fail(`${(e as Error).message}\n${gatewayLog(s)}`));
  assert.equal(mode(jobsDb), '600');
  assert.equal(mode(join(hermesHome, 'gateway-auth.sqlite3')), '600');

  const { client } = await openSession(s.mcpUrl);
  try {
    const done = await viaBridge(client, 'job_status', finished);
    assert.equal(done.isError, false, JSON.stringify(done.data));
    assert.equal(done.data.state, 'succeeded');
    assert.match(JSON.stringify(done.data), /backed-up/);
    const still = await viaBridge(client, 'job_status', prepared);
    assert.equal(still.isError, false, JSON.stringify(still.data));
    assert.ok(['prepared', 'expired'].includes(still.data.state as string), String(still.data.state));
    const gone = await viaBridge(client, 'job_status', afterBackup);
    assert.equal(gone.isError, true);
    assert.match(JSON.stringify(gone.data), /JOB_NOT_FOUND/);
  } finally {
    await client.close();
  }
  const tokens = authCli(hermesHome, ['token', 'list', '--json']);
  assert.equal(tokens.status, 0, tokens.stderr);
  assert.match(tokens.stdout, /backup-check/);
  const order = s.calls().filter((c) => c[0] === 'systemctl').map((c) => c.slice(1).join(' '));
  assert.deepEqual(order.slice(-2), ['--user stop hermes-mcp-gateway', '--user start hermes-mcp-gateway']);
  await runBlock(s, 'systemctl --user stop hermes-mcp-gateway', s.checkout);
});

test('upgrade from the previous job schema: the documented steps migrate it; going back restores the snapshot', { timeout: 180_000 }, async () => {
  const [upgrade] = markedBlocks('upgrade', DOC);
  const [downgrade] = markedBlocks('downgrade', DOC);
  const hermesHome = makeHermesHome();
  after(() => rmSync(hermesHome, { recursive: true, force: true }));
  const s = await withSystemctl(stand(hermesHome, { enabled: ['hermes-mcp-gateway'], active: ['hermes-mcp-gateway'] }), true);

  // The job database as an earlier schema version left it, and jobs prepared by the product's own
  // insert (which writes only that version's columns).
  const PREVIOUS = OLDER_JOB_SCHEMA;
  const jobsDb = join(hermesHome, 'gateway-jobs.sqlite3');
  olderJobDatabase(jobsDb);
  {
    const db = new Database(jobsDb);
    const rules = { maxPrepared: 10, ttlMs: 7 * 24 * 3600_000 };
    for (const command of ['make test', 'npm run build']) {
      prepareJob(db, { command, workdir: join(hermesHome, command.split(' ')[0]!), maxRuntime: 600, profile: 'heavy', heavy: true, memoryReservation: 0, preparedBy: 'old-session' }, rules, Date.now());
    }
    db.close();
  }
  const before = jobRows(jobsDb);
  assert.equal(before.length, 2);

  const u = await runBlock(s, upgrade!, s.checkout);
  await serviceUp(s).catch((e: unknown) => assert.fail(`${(e as Error).message}\n${u.stdout}\n${u.stderr}\n${gatewayLog(s)}`));
  const steps = s.calls().map((c) => c.join(' '));
  // (doctor, the last step, asks the fake systemctl its read-only questions after these)
  assert.deepEqual(steps.slice(0, 5), ['systemctl --user stop hermes-mcp-gateway', 'git pull --ff-only', 'scripts/install.sh', 'npm run build', 'systemctl --user start hermes-mcp-gateway']);
  // The snapshot: taken before the new version ran, so still the previous schema, with the jobs, private.
  const snapshots = readdirSync(join(s.home, 'backups')).filter((f) => /^gateway-jobs-\d{8}-\d{6}\.sqlite3$/.test(f));
  assert.equal(snapshots.length, 1, readdirSync(join(s.home, 'backups')).join(', '));
  const snapshot = join(s.home, 'backups', snapshots[0]!);
  assert.equal(mode(snapshot), '600');
  assert.equal(mode(join(s.home, 'backups')), '700');
  assert.equal(userVersion(snapshot), PREVIOUS);
  assert.deepEqual(jobRows(snapshot), before);
  // The running gateway migrated the live database forward, keeping the receipts.
  assert.equal(userVersion(jobsDb), SCHEMA_VERSION);
  assert.deepEqual(jobRows(jobsDb), before);
  // The readiness line and doctor's job database line, as the page says to check them.
  assert.match(u.stdout, /"status":"(ready|not_ready)"/);
  assert.match(u.stdout, new RegExp(`job_database\\s+.*\\(schema ${SCHEMA_VERSION}, admission open\\)`));

  // Going back: the earlier release is not here to run, so the fake `start` only records this time.
  s.serviceRuns(false);
  const d = await runBlock(s, downgrade!, s.checkout);
  assert.equal(d.code, 0, `downgrade block failed:\n${d.stdout}\n${d.stderr}`);
  // (before anything opens it again: even a read-only connection makes a WAL database's -wal and -shm)
  assert.ok(!existsSync(`${jobsDb}-wal`) && !existsSync(`${jobsDb}-shm`), 'the migrated database\'s WAL files are gone');
  assert.equal(userVersion(jobsDb), PREVIOUS);
  assert.deepEqual(jobRows(jobsDb), before);
  assert.equal(mode(jobsDb), '600');
  const back = s.calls().map((c) => c.join(' ')).slice(steps.length);
  assert.deepEqual(back, ['systemctl --user stop hermes-mcp-gateway', 'git checkout HEAD@{1}', 'scripts/install.sh', 'npm run build', 'systemctl --user start hermes-mcp-gateway']);
});

test('removal: the documented steps leave none of our units and nothing enabled; a foreign unit stays', { timeout: 60_000 }, async () => {
  const [remove] = markedBlocks('remove-units', DOC);
  const s = await withSystemctl(stand(dirs.make('hmcp-ops-hermes-')), false);
  const unitDir = join(s.env.XDG_CONFIG_HOME!, 'systemd', 'user');
  // Installed as the page's "Running as a service" says, then the printed systemctl line run (against the fake).
  const install = await runBlock(s, 'scripts/install-units.sh --user', packageRoot());
  assert.equal(install.code, 0, install.stderr);
  const printed = /^\s+(systemctl --user daemon-reload && systemctl --user enable --now hermes-mcp-gateway)$/m.exec(install.stdout);
  assert.ok(printed, install.stdout);
  assert.equal((await runBlock(s, printed[1]!, packageRoot())).code, 0);
  assert.deepEqual(s.state(), { enabled: ['hermes-mcp-gateway'], active: ['hermes-mcp-gateway'] });
  writeFileSync(join(unitDir, 'other.service'), '[Service]\nExecStart=/bin/true\n');
  const ours = ['hermes-mcp-gateway.service', 'hermesjobs.slice', 'hermesshort.slice'];
  assert.deepEqual(readdirSync(unitDir).sort(), [...ours, 'other.service'].sort());

  // --remove refuses while the service is enabled and running.
  const early = await runBlock(s, 'scripts/install-units.sh --user --remove', packageRoot());
  assert.equal(early.code, 2);
  assert.match(early.stderr, /still active or enabled; first run: systemctl --user disable --now hermes-mcp-gateway/);
  assert.deepEqual(readdirSync(unitDir).sort(), [...ours, 'other.service'].sort());

  const r = await runBlock(s, remove!, packageRoot());
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.deepEqual(readdirSync(unitDir), ['other.service']);
  assert.deepEqual(s.state(), { enabled: [], active: [] });
  const systemctl = s.calls().filter((c) => c[0] === 'systemctl').map((c) => c.slice(1).join(' '));
  assert.equal(systemctl.at(-1), '--user daemon-reload', 'systemd reloads after the files are gone');
  assert.ok(systemctl.includes('--user disable --now hermes-mcp-gateway'));
  for (const f of ours) assert.match(r.stdout, new RegExp(`removed ${unitDir}/${f.replace('.', '\\.')}`));
});

test("removal of the state: the gateway's files go, Hermes' own home stays as it was", { timeout: 60_000 }, async () => {
  const [block] = markedBlocks('remove-state', DOC);
  const hermesHome = makeHermesHome();
  after(() => rmSync(hermesHome, { recursive: true, force: true }));
  const s = await withSystemctl(stand(hermesHome), true);
  writeFileSync(join(hermesHome, '.env'), 'OPENAI_API_KEY=sk-keep\nHERMES_MCP_LOG_LEVEL=info\n', { mode: 0o600 });
  const hermesFiles = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort();
  const hermesOwn = hermesFiles(hermesHome);
  assert.ok(hermesOwn.some((f) => f.endsWith('SOUL.md')) && hermesOwn.some((f) => f.includes(`${join(hermesHome, 'memories')}`)), hermesOwn.join('\n'));
  // The gateway's own files, made by the gateway: a start and a stop (job database, its exit records,
  // the state directory), a static token (the auth database), a reconcile (its audit log).
  assert.equal((await runBlock(s, 'systemctl --user start hermes-mcp-gateway', s.checkout)).code, 0);
  await serviceUp(s);
  assert.equal(authCli(hermesHome, ['token', 'create', 'gone-soon']).status, 0);
  assert.equal((await runBlock(s, 'systemctl --user stop hermes-mcp-gateway', s.checkout)).code, 0);
  mkdirSync(join(hermesHome, 'logs'), { recursive: true });
  writeFileSync(join(hermesHome, 'logs', 'gateway-auth-audit.jsonl'), '{}\n', { mode: 0o600 });
  writeFileSync(join(hermesHome, 'logs', 'gateway-auth-audit.jsonl.1'), '{}\n', { mode: 0o600 });
  writeFileSync(join(hermesHome, 'gateway-jobs.sqlite3-audit.jsonl'), '{}\n', { mode: 0o600 });
  const stateDir = join(s.env.XDG_RUNTIME_DIR!, `hermes-mcp-gateway-${process.getuid!()}`);
  mkdirSync(join(stateDir, 'terminal-x'), { recursive: true, mode: 0o700 });
  // Where a gateway started without XDG_RUNTIME_DIR keeps it.
  const tmpStateDir = join(s.env.TMPDIR!, `hermes-mcp-gateway-${process.getuid!()}`);
  mkdirSync(join(tmpStateDir, 'exec-x'), { recursive: true, mode: 0o700 });
  const ours = hermesFiles(hermesHome).filter((f) => !hermesOwn.includes(f));
  for (const name of ['gateway-jobs.sqlite3', 'gateway-auth.sqlite3']) assert.ok(ours.includes(join(hermesHome, name)), `${name} was made: ${ours.join(', ')}`);
  assert.ok(existsSync(join(hermesHome, 'gateway-jobs.sqlite3-exits')));

  const r = await runBlock(s, block!, s.checkout);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(hermesFiles(hermesHome), hermesOwn, 'exactly the gateway\'s files are gone; every file Hermes had is there');
  assert.ok(!existsSync(join(hermesHome, 'gateway-jobs.sqlite3-exits')));
  assert.ok(!existsSync(stateDir));
  assert.ok(!existsSync(tmpStateDir));
  assert.match(readFileSync(join(hermesHome, '.env'), 'utf8'), /OPENAI_API_KEY=sk-keep/);
});
