// Authentication overhead: p50/p99 of tool_search through two real gateway processes side by side
// in one run, one without authentication and one with HERMES_MCP_AUTH=on and a static bearer token
// (constant-time digest check, rate-limit bucket, audit line per request). Rounds are interleaved
// so the shared machine's background load hits both alike. Target: authenticated p50 <= 1.1x.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { launchGateway, nodeFlags, started } from './launch.js';
import { pct, post, row, sorted, stopChild, verdict } from './measure.js';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2000);
const TARGET = 1.1;

/** One timed tool_search (the JSON-RPC round trip, answer read in full). */
async function toolSearch(url: string, authorization?: string): Promise<number> {
  const t0 = performance.now();
  const reply = await post(url, 'tools/call', { name: 'tool_search', arguments: { queries: ['session token', 'skill'], limit: 5 } }, 'tool_search', authorization ? { authorization } : {});
  const dt = performance.now() - t0;
  if (!reply.result) throw new Error(`tool_search: ${JSON.stringify(reply).slice(0, 200)}`);
  return dt;
}

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hmcp-bench-auth-'));
  writeFileSync(join(dir, 'SOUL.md'), '# Soul\n');
  return dir;
}

async function main(): Promise<void> {
  const plainHome = home();
  const authHome = home();
  // A token made the way an operator makes one; the bucket is sized so the bench itself is never limited.
  const cli = spawnSync(process.execPath, [join(packageRoot(), 'dist', 'bin', 'auth.js'), 'token', 'create', 'bench', '--json'], { env: { ...process.env, HERMES_HOME: authHome }, encoding: 'utf8' });
  if (cli.status !== 0) throw new Error(`hermes-mcp-auth failed: ${cli.stderr}`);
  const authorization = `Bearer ${(JSON.parse(cli.stdout) as { token: string }).token}`;
  const plain = await launchGateway(plainHome);
  const authed = await launchGateway(authHome, { HERMES_MCP_AUTH: 'on', HERMES_MCP_AUTH_RATE_LIMIT_PER_MINUTE: '100000000' });
  try {
    const plainUrl = `http://127.0.0.1:${plain.port}/mcp`;
    const authUrl = `http://127.0.0.1:${authed.port}/mcp`;
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      // Alternate which goes first, so neither always runs on a cache the other warmed.
      const first = i % 2 === 0;
      const x = first ? await toolSearch(plainUrl) : 0;
      const y = await toolSearch(authUrl, authorization);
      const z = first ? x : await toolSearch(plainUrl);
      if (i >= WARMUP) {
        a.push(z);
        b.push(y);
      }
    }
    const plainSorted = sorted(a);
    const authSorted = sorted(b);
    const ratio = pct(authSorted, 50) / pct(plainSorted, 50);
    console.log(`bench/auth: ${ROUNDS} interleaved rounds after ${WARMUP} warm-up, keep-alive, Node ${process.version} ${nodeFlags.join(' ')}`);
    console.log(row('tool_search, no authentication', plainSorted));
    console.log(row('tool_search, static bearer token (auth on)', authSorted));
    console.log(`authenticated/unauthenticated p50 ${ratio.toFixed(3)}x (target <= ${TARGET}x): ${verdict(ratio <= TARGET)}`);
  } finally {
    for (const child of [...started]) await stopChild(child);
    rmSync(plainHome, { recursive: true, force: true });
    rmSync(authHome, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
