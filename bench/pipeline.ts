// The tool pipeline's own cost, in one run, through the real gateway process (its bin, production
// configuration) over real HTTP in the modern (2026-07-28) era, against the two floors it cannot go
// below:
//
//   the MCP SDK floor: tools/call of a no-op tool through the SDK's own handler (bench/sdk-floor-server.ts)
//   tool_search (public, answered in the gateway process)
//   terminal `true` via tool_call (session_token from session_open): pipeline + the owner's worker
//   a raw spawn('sh', ['-c', 'true']) from this process: what running any command costs
//
// Interleaved: each round sends one of each in turn, so background load on a shared machine falls
// on all four alike and the ratios stay meaningful. Targets printed: tool_search p50 <= 1.3x the
// SDK floor p50; terminal p50 <= SDK floor p50 + raw spawn p50 + 1 ms. Everything this starts is
// stopped by pid before it exits.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchGateway, launchSdkFloor, nodeFlags, started } from './launch.js';
import { env, pct, post, row, runBench, runToExit, sorted, stopChild, toolCall, verdict } from './measure.js';

const WARMUP = env('BENCH_WARMUP', 50);
const ROUNDS = env('BENCH_ROUNDS', 500);
const SEARCH_TARGET_RATIO = 1.3;
const TERMINAL_OVERHEAD_MS = 1;

const dirs: string[] = [];
async function cleanup(): Promise<void> {
  await Promise.all([...started].map((c) => stopChild(c)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}


async function timed(once: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await once();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const home = mkdtempSync(join(tmpdir(), 'hmcp-bench-pipeline-'));
  dirs.push(home);
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const gw = await launchGateway(home, { HERMES_MCP_TERMINAL_CWD: home, HERMES_MCP_STATE_DIR: join(home, '.state') });
  const sdkFloor = await launchSdkFloor();
  const gwUrl = `http://127.0.0.1:${gw.port}/mcp`;
  const sdkFloorUrl = `http://127.0.0.1:${sdkFloor.port}/mcp`;
  const token = (await toolCall(gwUrl, 'session_open', {})).session_token as string;
  if (!token) throw new Error('session_open returned no session_token');

  const calls: Array<[string, () => Promise<unknown>]> = [
    [
      'MCP SDK floor (tools/call of a no-op tool)',
      async () => {
        const r = await post(sdkFloorUrl, 'tools/call', { name: 'noop', arguments: {} }, 'noop');
        if (!r.result) throw new Error(`SDK floor tools/call: ${JSON.stringify(r).slice(0, 300)}`);
      },
    ],
    [
      'tool_search',
      async () => {
        const r = await post(gwUrl, 'tools/call', { name: 'tool_search', arguments: { queries: ['session token', 'skill'], limit: 5 } }, 'tool_search');
        const result = r.result as { isError?: boolean; structuredContent?: unknown } | undefined;
        if (!result?.structuredContent || result.isError === true) throw new Error(`tool_search: ${JSON.stringify(r).slice(0, 300)}`);
      },
    ],
    [
      'terminal `true` via tool_call',
      async () => {
        const r = await toolCall(gwUrl, 'terminal', { command: 'true' }, token);
        if (r.exit_code !== 0) throw new Error(`terminal true: ${JSON.stringify(r)}`);
      },
    ],
    ["raw spawn('sh', ['-c', 'true']) -> exit", () => runToExit('sh', ['-c', 'true'])],
  ];
  const samples = calls.map(() => [] as number[]);
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    for (let k = 0; k < calls.length; k++) {
      const dt = await timed(calls[k]![1]);
      if (i >= WARMUP) samples[k]!.push(dt);
    }
  }
  await toolCall(gwUrl, 'session_close', {}, token);
  const [floor, search, terminal, spawned] = samples.map(sorted) as [number[], number[], number[], number[]];

  console.log(`bench/pipeline: Node ${process.version} ${nodeFlags.join(' ')}, gateway pid ${gw.child.pid}, ${ROUNDS} interleaved rounds after ${WARMUP} warm-up, keep-alive`);
  calls.forEach(([label], k) => console.log(row(label, [floor, search, terminal, spawned][k]!)));
  const f50 = pct(floor, 50);
  const searchRatio = pct(search, 50) / f50;
  console.log(`tool_search p50 ${pct(search, 50).toFixed(2)} ms = ${searchRatio.toFixed(2)}x the SDK floor p50 ${f50.toFixed(2)} ms (target <= ${SEARCH_TARGET_RATIO}x): ${verdict(searchRatio <= SEARCH_TARGET_RATIO)}`);
  const budget = f50 + pct(spawned, 50) + TERMINAL_OVERHEAD_MS;
  console.log(
    `terminal p50 ${pct(terminal, 50).toFixed(2)} ms vs SDK floor p50 + raw spawn p50 + ${TERMINAL_OVERHEAD_MS} ms = ${budget.toFixed(2)} ms: ` +
      `${(pct(terminal, 50) - budget >= 0 ? '+' : '') + (pct(terminal, 50) - budget).toFixed(2)} ms, ratio ${(pct(terminal, 50) / budget).toFixed(2)}x ${verdict(pct(terminal, 50) <= budget)}`,
  );
  console.log(`total run ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

runBench(main, cleanup);
