import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { makeFakeSystemctl, type FakeSystemctl } from '../helpers/fake-systemctl.js';
import { standIn, type StandIn } from '../helpers/graph.js';
import { tempDirs } from '../helpers/temp.js';
import { processesWithHome } from '../helpers/procfs.js';

// `hermes-mcp-gateway doctor`, the real bin as a child process: a healthy-enough configuration
// (Camofox and the graph upstream answering, the rest optional) passes with the expected lines; a
// broken one (no SOUL.md, an invalid resource policy, no language server, Camofox unreachable)
// fails, each failure naming its fix; --json has the documented shape. systemctl is a fake on PATH
// (no test talks to a systemd manager), and nothing doctor starts outlives it.

const MAIN = join(packageRoot(), 'dist', 'bin', 'gateway.js');
const temp = tempDirs();
let camofox: Server;
let camofoxUrl: string;
before(async () => {
  // Camofox' /health as the browser probe reads it; nothing else is asked of it.
  camofox = createServer((req, res) => {
    res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, browserRunning: true, activeTabs: 0 }));
  });
  await new Promise<void>((resolve) => camofox.listen(0, '127.0.0.1', resolve));
  camofoxUrl = `http://127.0.0.1:${(camofox.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((resolve) => camofox.close(resolve));
  temp.removeAll();
});

function home(withSoul = true): { dir: string; env: Record<string, string>; systemctl: FakeSystemctl } {
  const dir = temp.make('hmcp-doctor-');
  if (withSoul) writeFileSync(join(dir, 'SOUL.md'), '# Soul\n');
  mkdirSync(join(dir, 'state'), { mode: 0o700 });
  const systemctl = makeFakeSystemctl(dir);
  const env = { HERMES_HOME: dir, HOME: dir, HERMES_MCP_ROOTS: dir, HERMES_MCP_STATE_DIR: join(dir, 'state'), PATH: `${systemctl.bin}:/usr/bin:/bin`, CAMOFOX_URL: camofoxUrl };
  return { dir, env, systemctl };
}

function doctor(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Only the given environment: the test runner's own must not leak a setting into the check.
  const child = spawn(process.execPath, [MAIN, 'doctor', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}


const line = (out: string, level: string, name: string) => out.split('\n').find((l) => new RegExp(`^${level}\\s+${name.replace('.', '\\.')}\\s`).test(l));

test('a healthy-enough configuration: expected lines, exit 0, and no worker outlives doctor', async () => {
  const { dir, env, systemctl } = home();
  const graph: StandIn = standIn(join(dir, 'graph-record'));
  const result = await doctor({ ...env, HERMES_MCP_GRAPH_COMMAND: graph.command, HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,hermes_tools,web_provider' });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  for (const name of ['configuration', 'startup_files', 'roots', 'browser', 'graph', 'job_database', 'systemd_user', 'hermesjobs.slice', 'public_url']) assert.ok(line(result.stdout, 'OK', name), `OK ${name}\n${result.stdout}`);
  assert.match(line(result.stdout, 'WARN', 'memory') ?? '', /optional here/);
  assert.ok(line(result.stdout, 'WARN', 'resource_policy'), 'development mode is a warning');
  // No state.db yet: session_db is ready and empty (nothing to search), a warning to know, with what to do.
  assert.match(line(result.stdout, 'WARN', 'session_db') ?? '', /session_db\s+empty: STATE_DB_MISSING: no Hermes session database at .*state\.db: Hermes creates state\.db on its first run/);
  assert.match(result.stdout, /\n\s+fix: nothing to do until Hermes has run once in this HERMES_HOME \(it creates state\.db\); otherwise point HERMES_HOME at your Hermes home\n/);
  assert.match(result.stdout, /no check failed/);
  // The probes ran for real: the graph upstream was started to answer, and is gone with doctor.
  assert.ok(graph.starts().length >= 1, 'the graph probe started its upstream');
  assert.deepEqual(graph.live(), []);
  assert.deepEqual(processesWithHome(dir), [], 'no worker doctor started outlives it');
  // systemd was only asked, read-only.
  assert.ok(systemctl.calls().length >= 2);
  for (const call of systemctl.calls()) assert.match(call, /^--user (is-system-running|show )/);
  assert.equal(existsSync(join(dir, 'gateway-jobs.sqlite3')), false, 'doctor creates no job database');
});

test('a broken configuration: a fail line per problem, each naming its fix, exit 1', async () => {
  const { dir, env } = home(false);
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, '{ not json', { mode: 0o600 });
  const result = await doctor({ ...env, CAMOFOX_URL: 'http://127.0.0.1:9', HERMES_MCP_RESOURCE_POLICY: policy, HERMES_MCP_LSP_TRUSTED_ROOTS: dir, HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,graph,hermes_tools,web_provider' });
  assert.equal(result.code, 1, result.stdout + result.stderr);
  const fixOf = (name: string) => {
    const lines = result.stdout.split('\n');
    const at = lines.findIndex((l) => new RegExp(`^FAIL\\s+${name}\\s`).test(l));
    assert.ok(at >= 0, `FAIL ${name}\n${result.stdout}`);
    return `${lines[at]}\n${lines[at + 1]}`;
  };
  assert.match(fixOf('startup_files'), /SOUL\.md[\s\S]*fix: /);
  assert.match(fixOf('resource_policy'), /RESOURCE_POLICY_INVALID[\s\S]*fix: .*HERMES_MCP_RESOURCE_POLICY/);
  assert.match(fixOf('lsp'), /no configured language server is installed[\s\S]*fix: .*install/);
  assert.match(fixOf('browser'), /fix: .*CAMOFOX_URL/);
  assert.deepEqual(processesWithHome(dir), []);
});

test('--json: {ok, checks: [{name, level, reason, fix?}]}; --help; a stray argument is a usage error', async () => {
  const { env } = home(false);
  const result = await doctor({ ...env, HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,graph,browser,hermes_tools,web_provider' }, '--json');
  assert.equal(result.code, 1);
  const report = JSON.parse(result.stdout) as { ok: boolean; checks: Array<Record<string, unknown>> };
  assert.equal(report.ok, false);
  for (const check of report.checks) {
    assert.deepEqual(Object.keys(check).filter((k) => !['name', 'level', 'reason', 'fix'].includes(k)), [], JSON.stringify(check));
    assert.ok(['ok', 'warn', 'fail'].includes(check.level as string));
    if (check.level === 'fail') assert.equal(typeof check.fix, 'string', `${String(check.name)} fails without a fix`);
  }
  assert.deepEqual(report.checks.filter((c) => c.level === 'fail').map((c) => c.name), ['startup_files']);
  const help = await doctor(env, '--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: hermes-mcp-gateway doctor \[--json\]/);
  const stray = await doctor(env, '--fix');
  assert.equal(stray.code, 2);
  assert.match(stray.stderr, /unexpected argument "--fix"/);
});
