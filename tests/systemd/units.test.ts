// systemd units: render with scripts/install-units.sh --dest into a temp dir, check the rendered
// unit's contract, then (when the offline tools work here) `systemd-analyze verify` and
// `systemd-analyze security --offline=true` with exposure <= 2.0.
// Never starts a systemd manager: only the offline analyze tools are invoked, and a failure to
// reach a bus/manager is reported as a visible skip, never worked around.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../supervisor/platform/config.js';

// dist/tests/systemd/units.test.js -> repo root is three levels up.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const script = join(repoRoot, 'scripts', 'install-units.sh');
const work = mkdtempSync(join(tmpdir(), 'hermes-units-'));
const fakeHome = join(work, 'home');
after(() => rmSync(work, { recursive: true, force: true }));

const HARDENING = [
  'NoNewPrivileges=yes',
  'PrivateTmp=yes',
  'ProtectSystem=strict',
  'ProtectHome=read-only',
  'ProtectKernelTunables=yes',
  'ProtectKernelModules=yes',
  'ProtectKernelLogs=yes',
  'ProtectControlGroups=yes',
  'RestrictSUIDSGID=yes',
  'LockPersonality=yes',
  'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
  'SystemCallArchitectures=native',
  'RestrictRealtime=yes',
  'ProtectClock=yes',
  'ProtectHostname=yes',
  'KillMode=control-group',
];

function install(args: string[], extraEnv: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync('bash', [script, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, HOME: fakeHome, HERMES_HOME: '', HERMES_MCP_ROOTS: '', HERMES_MCP_BRIDGE_ENV: '', XDG_CONFIG_HOME: join(fakeHome, '.config'), ...extraEnv },
  });
}

function render(name: string, args: string[]): { dir: string; unit: string; text: string; res: SpawnSyncReturns<string> } {
  const dir = join(work, name);
  const res = install([...args, '--dest', dir]);
  assert.equal(res.status, 0, `install-units.sh ${args.join(' ')} failed: ${res.stderr}`);
  const unit = join(dir, 'hermes-mcp-gateway.service');
  return { dir, unit, text: readFileSync(unit, 'utf8'), res };
}

/** Directive lines (comments stripped), so a comment mentioning a key never satisfies an assertion. */
function directives(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}
function values(text: string, key: string): string[] {
  return directives(text).filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
}

// System render with an explicit service account: the configuration the exposure target applies to
// (a root-run unit is scored as such; user units run as the owning user).
const system = render('system', ['--system', '--user-name', 'hermes', '--group', 'hermes', '--roots', '/srv/hermes-a:~/work']);
const user = render('user', ['--user']);

test('rendered units: no leftover @PLACEHOLDER@, slices copied alongside', () => {
  for (const r of [system, user]) {
    assert.doesNotMatch(r.text, /@[A-Z_]+@/);
    for (const slice of ['hermesjobs.slice', 'hermesshort.slice']) {
      const s = readFileSync(join(r.dir, slice), 'utf8');
      assert.match(s, /^\[Slice\]$/m);
      assert.doesNotMatch(s, /@[A-Z_]+@/);
    }
  }
});

test('soft dependencies only, loopback bind, env file, restart and umask', () => {
  for (const { text } of [system, user]) {
    assert.ok(values(text, 'Wants').length > 0, 'Wants= present');
    assert.ok(values(text, 'After').length > 0, 'After= present');
    assert.deepEqual(values(text, 'Requires'), [], 'no hard Requires=');
    assert.deepEqual(values(text, 'BindsTo'), [], 'no BindsTo=');
    assert.ok(values(text, 'Environment').includes('HERMES_MCP_HOST=127.0.0.1'));
    assert.deepEqual(values(text, 'Restart'), ['on-failure']);
    assert.deepEqual(values(text, 'UMask'), ['0077']);
    const [exec] = values(text, 'ExecStart');
    assert.ok(exec, 'ExecStart present');
    assert.match(exec!, /^\/\S+ --max-semi-space-size=2 \S+\/dist\/bin\/gateway\.js$/);
    assert.ok(exec!.includes(join(repoRoot, 'dist', 'bin', 'gateway.js')));
    const stop = Number.parseInt(values(text, 'TimeoutStopSec')[0] ?? '', 10);
    // Shutdown is two phases of the 10 s grace (drain, then stop workers and jobs).
    assert.ok(stop > 20 && stop <= 30, `TimeoutStopSec a bit above twice the 10 s grace, got ${stop}`);
  }
  // The gateway reads $HERMES_HOME/.env itself (supervisor/platform/environment.ts): one reader, one parser.
  assert.deepEqual(values(user.text, 'EnvironmentFile'), []);
});

test('hardening keys present; namespaces needed by workers stay allowed', () => {
  for (const { text } of [system, user]) {
    const lines = directives(text);
    for (const h of HARDENING) assert.ok(lines.includes(h), `missing ${h}`);
    const rns = values(text, 'RestrictNamespaces');
    assert.equal(rns.length, 1);
    const allowed = rns[0]!.split(/\s+/);
    for (const ns of ['user', 'pid', 'mnt']) assert.ok(allowed.includes(ns), `worker namespace ${ns} must stay allowed`);
    assert.ok(!rns[0]!.startsWith('~') && rns[0] !== 'yes', 'not a deny-all');
  }
  // explicit writable paths: HERMES_HOME, state dir and every root
  const rw = values(system.text, 'ReadWritePaths').join(' ').split(/\s+/);
  assert.ok(rw.includes(`-${fakeHome}/.hermes`) || rw.some((p) => p.endsWith('/.hermes')), `HERMES_HOME writable: ${rw}`);
  assert.ok(rw.includes('-%t/hermes-mcp-gateway'), `state dir writable: ${rw}`);
  assert.ok(rw.includes('-/srv/hermes-a'), `root writable: ${rw}`);
  assert.ok(values(system.text, 'Environment').includes('HERMES_MCP_ROOTS=/srv/hermes-a:' + rw.find((p) => p.endsWith('/work'))!.slice(1)));
});

test('system mode adds User=/Group=; user mode does not; WantedBy per mode', () => {
  assert.deepEqual(values(system.text, 'User'), ['hermes']);
  assert.deepEqual(values(system.text, 'Group'), ['hermes']);
  assert.deepEqual(values(system.text, 'WantedBy'), ['multi-user.target']);
  assert.deepEqual(values(user.text, 'User'), []);
  assert.deepEqual(values(user.text, 'WantedBy'), ['default.target']);
  assert.match(system.res.stdout, /^ {2}systemctl daemon-reload && systemctl enable --now hermes-mcp-gateway$/m);
  assert.match(user.res.stdout, /^ {2}systemctl --user daemon-reload && systemctl --user enable --now hermes-mcp-gateway$/m);
});

test('install script: --dry-run writes nothing, --help, bad arguments rejected', () => {
  const dest = join(work, 'dry');
  const dry = install(['--user', '--dry-run', '--dest', dest]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /ExecStart=/);
  assert.ok(!existsSync(dest), '--dry-run must not create the destination');
  const help = install(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--system/);
  assert.notEqual(install([]).status, 0);
  assert.notEqual(install(['--user', '--system', '--dry-run']).status, 0);
  assert.notEqual(install(['--user', '--dry-run', '--roots', '/has space']).status, 0);
  assert.notEqual(install(['--user', '--dry-run', '--roots', 'relative/path']).status, 0);
  assert.notEqual(install(['--user', '--dry-run', '--user-name', 'x']).status, 0);
});

test('with a hermes-mcp-bridge .env, its TASKS_DIR and audit directory become writable and the unit names the file', () => {
  const bridge = join(work, 'bridge');
  mkdirSync(bridge, { recursive: true });
  const envFile = join(bridge, 'bridge.env');
  // Outside HERMES_HOME (ProtectHome=read-only would make them read-only); $HOME is the service user's.
  writeFileSync(envFile, `MCP_AUTH_TOKEN=${'a'.repeat(64)}\nTASKS_DIR=${bridge}/tasks\nAUDIT_LOG=$HOME/audit/bridge.jsonl\n`, { mode: 0o600 });
  const viaEnv = install(['--user', '--dry-run'], { HERMES_MCP_BRIDGE_ENV: envFile });
  assert.equal(viaEnv.status, 0, viaEnv.stderr);
  const rw = values(viaEnv.stdout, 'ReadWritePaths').join(' ').split(/\s+/);
  assert.ok(rw.includes(`-${bridge}/tasks`), `TASKS_DIR writable: ${rw}`);
  assert.ok(rw.includes(`-${fakeHome}/audit`), `audit directory writable: ${rw}`);
  assert.ok(values(viaEnv.stdout, 'Environment').includes(`HERMES_MCP_BRIDGE_ENV=${envFile}`));
  assert.match(viaEnv.stderr, new RegExp(`create ${bridge}/tasks`), 'a missing directory outside HERMES_HOME is pointed out');
  const viaFlag = render('bridge-flag', ['--user', '--bridge-env', envFile]);
  assert.ok(values(viaFlag.text, 'ReadWritePaths').join(' ').includes(`-${bridge}/tasks`));
  // Without one, nothing is added.
  assert.ok(!values(user.text, 'Environment').some((v) => v.startsWith('HERMES_MCP_BRIDGE_ENV=')));
  // A file the gateway would refuse (readable by others) is refused here too, with the gateway's reason.
  chmodSync(envFile, 0o644);
  const refused = install(['--user', '--dry-run', '--bridge-env', envFile]);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /chmod 600/);
});

// ---- offline systemd-analyze checks --------------------------------------------------------------

const MANAGER_ERROR = /Failed to (initialize manager|connect to bus|create bus connection)|No such device or address|Transport endpoint is not connected|Host is down/i;

function analyze(args: string[]): SpawnSyncReturns<string> {
  return spawnSync('systemd-analyze', args, { encoding: 'utf8', timeout: 60_000, cwd: work, env: { ...process.env, SYSTEMD_PAGER: '', SYSTEMD_COLORS: '0' } });
}

function skipReason(res: SpawnSyncReturns<string>, what: string): string | undefined {
  const err = res.error as NodeJS.ErrnoException | undefined;
  if (err?.code === 'ENOENT') return 'systemd-analyze is not installed on this host';
  if (err) return `${what} could not run: ${err.message}`;
  if (res.status !== 0 && MANAGER_ERROR.test(res.stderr)) {
    return `${what} cannot run offline here (needs a bus/manager; none is started by tests): ${res.stderr.trim().split('\n')[0]}`;
  }
  return undefined;
}

/** `systemd-analyze verify` of `files` and `security --offline` of `unit` (exposure <= 2.0), each a visible skip where it cannot run here. */
function offlineChecks(label: string, files: string[], unit: string): void {
  const verifyRes = analyze(['verify', ...files]);
  test(`systemd-analyze verify (${label}): clean`, { skip: skipReason(verifyRes, 'systemd-analyze verify') ?? false }, () => {
    assert.equal(verifyRes.status, 0, `verify failed:\n${verifyRes.stdout}\n${verifyRes.stderr}`);
    assert.equal(verifyRes.stderr.trim(), '', `verify warnings:\n${verifyRes.stderr}`);
  });

  const securityRes = analyze(['security', '--offline=true', '--no-pager', unit]);
  test(`systemd-analyze security --offline=true (${label}): overall exposure <= 2.0`, { skip: skipReason(securityRes, 'systemd-analyze security --offline=true') ?? false }, (t) => {
    assert.equal(securityRes.status, 0, `security failed:\n${securityRes.stderr}`);
    const m = /Overall exposure level for \S+: (\d+(?:\.\d+)?)/.exec(securityRes.stdout);
    assert.ok(m, `no exposure level in output:\n${securityRes.stdout.slice(-500)}`);
    const exposure = Number(m![1]);
    t.diagnostic(`overall exposure level: ${exposure}`);
    assert.ok(exposure <= 2.0, `exposure ${exposure} > 2.0:\n${securityRes.stdout}`);
  });
}

offlineChecks('the gateway units', [system.unit, join(system.dir, 'hermesjobs.slice'), join(system.dir, 'hermesshort.slice')], system.unit);

test('a system unit reaches its account\'s user manager for systemd-run --user job scopes', () => {
  const me = spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout.trim();
  const uid = String(process.getuid?.());
  const r = render('system-self', ['--system', '--user-name', me]);
  assert.deepEqual(values(r.text, 'Environment').filter((v) => /XDG_RUNTIME_DIR|DBUS_SESSION_BUS_ADDRESS/.test(v)), [
    `XDG_RUNTIME_DIR=/run/user/${uid}`,
    `DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/${uid}/bus`,
  ]);
  // A user unit already runs inside its user manager's environment.
  assert.ok(!values(user.text, 'Environment').some((v) => v.startsWith('XDG_RUNTIME_DIR=')));
});

// ---- the Secure MCP Tunnel client's unit (--tunnel-client) ---------------------------------------

const fakeTunnelClient = join(work, 'bin', 'tunnel-client');
mkdirSync(dirname(fakeTunnelClient), { recursive: true });
writeFileSync(fakeTunnelClient, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
const tunnelSystem = render('tunnel-system', ['--system', '--user-name', 'hermes', '--group', 'hermes', '--tunnel-client', fakeTunnelClient]);
const tunnelUser = render('tunnel-user', ['--user', '--tunnel-client', fakeTunnelClient]);
const tunnelUnit = (r: { dir: string }) => readFileSync(join(r.dir, 'tunnel-client.service'), 'utf8');

test('--tunnel-client renders tunnel-client.service: run, its settings file, after the gateway, restarted, hardened', () => {
  const defaultUrl = `http://127.0.0.1:${loadConfig({}).port}/mcp`;
  for (const r of [tunnelSystem, tunnelUser]) {
    const text = tunnelUnit(r);
    assert.doesNotMatch(text, /@[A-Z_]+@/);
    assert.deepEqual(values(text, 'ExecStart'), [`${fakeTunnelClient} run`]);
    for (const key of ['After', 'Wants']) assert.ok(values(text, key).join(' ').split(/\s+/).includes('hermes-mcp-gateway.service'), `${key}= the gateway`);
    assert.deepEqual([...values(text, 'Requires'), ...values(text, 'BindsTo'), ...values(text, 'PartOf')], [], 'soft dependencies only');
    assert.deepEqual(values(text, 'Restart'), ['always']);
    assert.ok(values(text, 'Environment').includes(`MCP_SERVER_URL=${defaultUrl}`), "the gateway's default MCP URL");
    assert.ok(values(text, 'Environment').includes('HEALTH_LISTEN_ADDR=127.0.0.1:8080'), 'its health server stays on loopback');
    const lines = directives(text);
    for (const h of [...HARDENING, 'MemoryDenyWriteExecute=yes', 'RestrictNamespaces=yes', 'CapabilityBoundingSet=', 'UMask=0077']) assert.ok(lines.includes(h), `missing ${h}`);
    assert.match(r.res.stdout, /enable --now hermes-mcp-gateway tunnel-client$/m);
  }
  // The settings file holds the API key: required (no leading "-"), per mode.
  assert.deepEqual(values(tunnelUnit(tunnelSystem), 'EnvironmentFile'), ['/etc/tunnel-client/hermes-mcp-gateway.env']);
  assert.deepEqual(values(tunnelUnit(tunnelUser), 'EnvironmentFile'), [`${fakeHome}/.config/tunnel-client/hermes-mcp-gateway.env`]);
  assert.match(tunnelUser.res.stderr, /create \S+hermes-mcp-gateway\.env \(mode 0600\)/);
  // System mode: an account of its own, not the gateway's; a user unit runs as its user.
  assert.deepEqual([values(tunnelUnit(tunnelSystem), 'User'), values(tunnelUnit(tunnelSystem), 'DynamicUser')], [['hermes-tunnel'], ['yes']]);
  assert.deepEqual(values(tunnelUnit(tunnelUser), 'User'), []);
  // Without the option there is no tunnel unit.
  assert.ok(!existsSync(join(user.dir, 'tunnel-client.service')));
});

test('--tunnel-env: a settings file others can read is refused; --tunnel-env alone is a usage error', () => {
  const envFile = join(work, 'tunnel.env');
  writeFileSync(envFile, 'CONTROL_PLANE_API_KEY=x\n', { mode: 0o644 });
  chmodSync(envFile, 0o644);
  const refused = install(['--user', '--dry-run', '--tunnel-client', fakeTunnelClient, '--tunnel-env', envFile]);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, new RegExp(`chmod 600 ${envFile}`));
  chmodSync(envFile, 0o600);
  const ok = install(['--user', '--dry-run', '--tunnel-client', fakeTunnelClient, '--tunnel-env', envFile]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.ok(values(ok.stdout, 'EnvironmentFile').includes(envFile));
  assert.doesNotMatch(ok.stderr, /create \S+tunnel\.env/, 'an existing file is not pointed out');
  assert.notEqual(install(['--user', '--dry-run', '--tunnel-env', envFile]).status, 0);
  assert.notEqual(install(['--user', '--dry-run', '--tunnel-client', 'relative/tunnel-client']).status, 0);
});

offlineChecks('the tunnel unit', [join(tunnelSystem.dir, 'tunnel-client.service')], join(tunnelSystem.dir, 'tunnel-client.service'));
