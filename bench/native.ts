// Native execution benchmark, in one run, through the real gateway process (spawned via its bin's
// shebang, production configuration) over real HTTP in the modern (2026-07-28) era:
//
//   terminal `true` via tool_call (session_token from session_open) vs a raw spawn('sh -c true')
//   execute_code `print(1)` vs a cold `/usr/bin/python3 -I -S -c pass`, twice: calls spaced out (a
//     prepared unit is always waiting) and back to back (units must be prepared as fast as they
//     are used: one per call, never reused)
//   the HTTP floor (bare Hono JSON POST, bench/floor-server.ts) and the MCP SDK floor (tools/call of
//     a no-op tool through the SDK's own handler, bench/sdk-floor-server.ts), measured in the same run
//   teardown of the 3-escapee tree (tests/fixtures/escape.sh): WorkerProcess.kill() (pid-namespace
//     mode, supervisor/workers used in-process) until no escapee survives
//
// Targets printed: terminal p50 <= raw spawn p50 + 3 ms + floor p50; execute_code p50 <= cold python
// p50 + floor p50 (spaced out) and <= SDK floor p50 + cold python p50 + 3 ms (back to back); teardown
// p99 <= 50 ms. Everything this starts is stopped by pid before it exits.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { terminalProtocol, type TerminalProtocol } from '../shared/worker-protocol/terminal.js';
import { launchFloor, launchGateway, launchSdkFloor, nodeFlags, started } from './launch.js';
import { env, pct, post, row, runBench, runToExit, sample, sorted, stopChild, toolCall, verdict } from './measure.js';
import { detectIsolation } from '../supervisor/platform/spawning/isolation.js';
import { WorkerProcess } from '../supervisor/platform/spawning/worker-process.js';
import { ESCAPEE_COUNT, escapeeCommand, killSurvivors, newMarker, survivors, waitForSurvivors } from '../tests/helpers/escapees.js';

const FLOOR_WARMUP = env('BENCH_FLOOR_WARMUP', 300);
const FLOOR_ROUNDS = env('BENCH_FLOOR_ROUNDS', 2000);
const SPAWN_WARMUP = env('BENCH_SPAWN_WARMUP', 20);
const SPAWN_ROUNDS = env('BENCH_SPAWN_ROUNDS', 300);
const TERMINAL_WARMUP = env('BENCH_TERMINAL_WARMUP', 20);
const TERMINAL_ROUNDS = env('BENCH_TERMINAL_ROUNDS', 300);
const PYTHON_WARMUP = env('BENCH_PYTHON_WARMUP', 5);
const PYTHON_ROUNDS = env('BENCH_PYTHON_ROUNDS', 100);
const EXEC_WARMUP = env('BENCH_EXEC_WARMUP', 5);
const EXEC_ROUNDS = env('BENCH_EXEC_ROUNDS', 60);
/** Pause between execute_code calls so the next pre-spawned unit is up (an agent's calls are seconds apart). */
const EXEC_GAP_MS = env('BENCH_EXEC_GAP_MS', 300);
const TEARDOWN_ROUNDS = env('BENCH_TEARDOWN_ROUNDS', 30);
const TERMINAL_OVERHEAD_MS = 3;
/** What back-to-back execute_code may cost beyond the SDK floor and a cold Python. */
const EXEC_BACK_TO_BACK_OVERHEAD_MS = 3;
const TEARDOWN_TARGET_MS = 50;
const PYTHON = '/usr/bin/python3';

const root = packageRoot();


// ---- process bookkeeping: everything started here is stopped by pid ----

const workers = new Set<WorkerProcess<TerminalProtocol>>();
const markers: string[] = [];
const dirs: string[] = [];

let cleaned = false;
async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  await Promise.all([...workers].map((w) => w.kill()));
  await Promise.all([...started].map((c) => stopChild(c)));
  for (const m of markers) killSurvivors(m);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}



// ---- teardown of the escapee tree, in-process ----

async function teardownSamples(rounds: number): Promise<number[]> {
  const isolation = detectIsolation('pid-namespace');
  if (isolation.mode !== 'pid-namespace') throw new Error(`pid-namespace isolation unavailable here: ${isolation.reason}`);
  const entry = join(root, 'dist', 'workers', 'terminal-worker.js');
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const stateDir = mkdtempSync(join(tmpdir(), 'hmcp-bench-td-'));
    dirs.push(stateDir);
    const worker = new WorkerProcess({ protocol: terminalProtocol, entry, isolation, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() }, cwd: '/' });
    workers.add(worker);
    await worker.waitFor((f) => f.type === 'ready');
    const marker = newMarker();
    markers.push(marker);
    // Never answered: killed first.
    worker.request({ type: 'exec', command: escapeeCommand(marker), cwd: '/', timeoutMs: 120_000, stateDir, maxOutputBytes: 4096 }).catch(() => {});
    if ((await waitForSurvivors(marker, ESCAPEE_COUNT)).length < ESCAPEE_COUNT) throw new Error('escapees did not start');
    const t0 = performance.now();
    const killed = worker.kill();
    let left = survivors(marker);
    while (left.length > 0) {
      if (performance.now() - t0 > 5000) throw new Error(`teardown left survivors after 5 s: ${left.join(' ')}`);
      await new Promise((r) => setImmediate(r));
      left = survivors(marker);
    }
    out.push(performance.now() - t0);
    await killed;
    workers.delete(worker);
  }
  return sorted(out);
}

// ---- main ----

async function main(): Promise<void> {
  const t0 = performance.now();
  const home = mkdtempSync(join(tmpdir(), 'hmcp-bench-native-'));
  dirs.push(home);
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const gw = await launchGateway(home, { HERMES_MCP_TERMINAL_CWD: home, HERMES_MCP_STATE_DIR: join(home, '.state'), HERMES_MCP_PYTHON: PYTHON });
  const floor = await launchFloor();
  const sdkFloor = await launchSdkFloor();
  const gwUrl = `http://127.0.0.1:${gw.port}/mcp`;
  const floorUrl = `http://127.0.0.1:${floor.port}/mcp`;
  const sdkFloorUrl = `http://127.0.0.1:${sdkFloor.port}/mcp`;

  const token = (await toolCall(gwUrl, 'session_open', {})).session_token as string;
  if (!token) throw new Error('session_open returned no session_token');

  // Interleaving would blur the figures on a small machine: each series runs on its own.
  const floorSamples = await sample(FLOOR_WARMUP, FLOOR_ROUNDS, async () => {
    await post(floorUrl, 'tools/list', {});
  });
  const sdkFloorSamples = await sample(FLOOR_WARMUP, FLOOR_ROUNDS, async () => {
    const r = await post(sdkFloorUrl, 'tools/call', { name: 'noop', arguments: {} }, 'noop');
    if (!r.result) throw new Error(`SDK floor tools/call: ${JSON.stringify(r).slice(0, 300)}`);
  });
  const rawSpawn = await sample(SPAWN_WARMUP, SPAWN_ROUNDS, () => runToExit('sh', ['-c', 'true']));
  const terminal = await sample(TERMINAL_WARMUP, TERMINAL_ROUNDS, async () => {
    const r = await toolCall(gwUrl, 'terminal', { command: 'true' }, token);
    if (r.exit_code !== 0) throw new Error(`terminal true: ${JSON.stringify(r)}`);
  });
  const coldPython = await sample(PYTHON_WARMUP, PYTHON_ROUNDS, () => runToExit(PYTHON, ['-I', '-S', '-c', 'pass']));
  const execOnce = async () => {
    const r = await toolCall(gwUrl, 'execute_code', { code: 'print(1)' });
    if (r.status !== 'success' || r.output !== '1\n') throw new Error(`execute_code print(1): ${JSON.stringify(r)}`);
  };
  const execWarm = await sample(EXEC_WARMUP, EXEC_ROUNDS, execOnce, EXEC_GAP_MS);
  const execBackToBack = await sample(EXEC_WARMUP, EXEC_ROUNDS, execOnce);
  await toolCall(gwUrl, 'session_close', {}, token);
  const teardown = await teardownSamples(TEARDOWN_ROUNDS);

  const f50 = pct(floorSamples, 50);
  console.log(`bench/native: Node ${process.version} ${nodeFlags.join(' ')}, gateway pid ${gw.child.pid}, sequential requests, keep-alive`);
  console.log(row('HTTP floor (bare Hono JSON POST)', floorSamples));
  console.log(row('MCP SDK floor (tools/call of a no-op tool)', sdkFloorSamples));
  console.log(row("raw spawn('sh', ['-c', 'true']) -> exit", rawSpawn));
  console.log(row('terminal `true` via tool_call', terminal));
  console.log(row(`cold ${PYTHON} -I -S -c pass`, coldPython));
  console.log(row(`execute_code print(1) (${EXEC_GAP_MS} ms apart, unit prepared)`, execWarm));
  console.log(row('execute_code print(1) (back to back)', execBackToBack));
  console.log(row(`teardown: kill() -> 0 of ${ESCAPEE_COUNT} escapees left`, teardown));
  const termBudget = pct(rawSpawn, 50) + TERMINAL_OVERHEAD_MS + f50;
  const execBudget = pct(coldPython, 50) + f50;
  console.log(
    `terminal p50 ${pct(terminal, 50).toFixed(2)} ms vs raw spawn p50 + ${TERMINAL_OVERHEAD_MS} ms + floor p50 = ${termBudget.toFixed(2)} ms: ratio ${(pct(terminal, 50) / termBudget).toFixed(2)}x ${verdict(pct(terminal, 50) <= termBudget)}`,
  );
  const b2bBudget = pct(sdkFloorSamples, 50) + pct(coldPython, 50) + EXEC_BACK_TO_BACK_OVERHEAD_MS;
  console.log(
    `execute_code p50 ${pct(execWarm, 50).toFixed(2)} ms vs cold python p50 + floor p50 = ${execBudget.toFixed(2)} ms: ratio ${(pct(execWarm, 50) / execBudget).toFixed(2)}x ${verdict(pct(execWarm, 50) <= execBudget)}`,
  );
  console.log(
    `execute_code back to back p50 ${pct(execBackToBack, 50).toFixed(2)} ms vs SDK floor p50 + cold python p50 + ${EXEC_BACK_TO_BACK_OVERHEAD_MS} ms = ${b2bBudget.toFixed(2)} ms: ratio ${(pct(execBackToBack, 50) / b2bBudget).toFixed(2)}x ${verdict(pct(execBackToBack, 50) <= b2bBudget)}`,
  );
  console.log(`teardown p99 ${pct(teardown, 99).toFixed(2)} ms vs ${TEARDOWN_TARGET_MS} ms: ${verdict(pct(teardown, 99) <= TEARDOWN_TARGET_MS)} (p50 ${pct(teardown, 50).toFixed(2)} ms, max ${teardown[teardown.length - 1]!.toFixed(2)} ms)`);
  console.log(`total run ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

runBench(main, cleanup);
