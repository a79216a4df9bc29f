// How many product source files one tool call runs through, from the MCP endpoint to the worker
// and back: a gateway in this process, V8's precise coverage (call counts per function) reset
// right before one call and read right after its answer (and the request's log line) is in. A
// file counts when any of its functions ran during that call. Each call is measured three times
// after a warm-up; a function counts only when it ran all three times, so a timer that happened to
// fire during one call (a sampler, a sweep) is not counted.
//
// Two counts: every product file that ran for the request ("all"), and those that ran for the
// tool call beyond what any HTTP request runs ("call path"): the functions a GET /healthz also ran
// (the listener, the app's middleware, the request's log line and its redaction, metrics) are left
// out, so a file counts there only for a function of its own on the call's path.
//
// The worker's side (the terminal worker, a child process) is not seen by this process's
// coverage; it is listed from the worker's own imports instead (WORKER_PATH below).
//
//   node dist/bench/call-path.js
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { packageRoot } from '../shared/package-root.js';
import { environmentSnapshot, loadConfig } from '../supervisor/platform/config.js';
import { createLogger } from '../supervisor/platform/telemetry.js';
import { startGateway } from '../supervisor/compose/index.js';
import { toolCall } from './measure.js';

/** The terminal worker's files on an exec request's path (workers/terminal-worker.ts and what it runs for `exec`). */
const WORKER_PATH = [
  'workers/terminal-worker.ts',
  'workers/runtime/run-worker.ts',
  'workers/runtime/channel.ts',
  'workers/runtime/persistent-shell.ts',
  'workers/runtime/reap.ts',
  'shared/proc.ts',
  'shared/output-cap.ts',
  'shared/worker-protocol/frame.ts',
  'shared/worker-protocol/protocol.ts',
];

const PRODUCT = /^(supervisor|shared|workers|bin)\//;
const root = packageRoot();
const dist = join(root, 'dist');

interface ScriptCoverage {
  url: string;
  functions: Array<{ functionName: string; ranges: Array<{ startOffset: number; count: number }> }>;
}

async function main(): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  /** The product functions (file and offset) that ran since the last call. */
  const ran = async (): Promise<Set<string>> => {
    const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
    const functions = new Set<string>();
    for (const script of result) {
      if (!script.url.startsWith('file://')) continue;
      const file = relative(dist, new URL(script.url).pathname).replace(/\.js$/, '.ts');
      if (!PRODUCT.test(file)) continue;
      for (const f of script.functions) if ((f.ranges[0]?.count ?? 0) > 0) functions.add(`${file}#${f.ranges[0]!.startOffset}`);
    }
    return functions;
  };
  /** The functions that ran in each of three runs of `once` (after a reset). */
  const measured = async (once: () => Promise<unknown>): Promise<Set<string>> => {
    let common: Set<string> | undefined;
    for (let i = 0; i < 3; i++) {
      await ran(); // reset
      await once();
      await new Promise((r) => setTimeout(r, 20)); // the request's log line and metrics, after the answer
      const functions = await ran();
      common = common ? new Set([...common].filter((f) => functions.has(f))) : functions;
    }
    return common!;
  };
  const filesOf = (functions: Iterable<string>) => [...new Set([...functions].map((f) => f.slice(0, f.indexOf('#'))))].sort();

  const home = mkdtempSync(join(tmpdir(), 'hmcp-call-path-'));
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const source = join(home, 'module.py');
  writeFileSync(source, Array.from({ length: 40 }, (_, i) => `value_${i} = compute(${i})`).join('\n') + '\n');
  const config = loadConfig(
    { PATH: process.env.PATH, HERMES_HOME: home, HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_TERMINAL_CWD: home, HERMES_MCP_STATE_DIR: join(home, '.state') },
    { inheritedEnvironment: environmentSnapshot(process.env) },
  );
  // The production log level: the request's log line is part of its path.
  const log = createLogger(config.logLevel, new Writable({ write: (_chunk, _enc, done) => done() }));
  const gw = await startGateway({ config, log });
  try {
    const url = `${gw.url}/mcp`;
    const token = (await toolCall(url, 'session_open', {})).session_token as string;
    let reads = 0;
    const calls: Record<string, () => Promise<unknown>> = {
      'terminal `true`': () => toolCall(url, 'terminal', { command: 'true' }, token),
      // A new region each time (the file has 40 lines, the calls are 23): reading one unchanged region
      // again is refused by the repeated-read guards, which are not the path being measured.
      'read_file (40 lines)': () => {
        reads += 1;
        return toolCall(url, 'read_file', { path: source, offset: reads }, token);
      },
    };
    for (let i = 0; i < 20; i++) await fetch(`${gw.url}/healthz`).then((r) => r.text());
    const anyRequest = await measured(() => fetch(`${gw.url}/healthz`).then((r) => r.text()));
    for (const [label, call] of Object.entries(calls)) {
      for (let i = 0; i < 20; i++) await call();
      const functions = await measured(call);
      const all = filesOf(functions);
      const path = filesOf([...functions].filter((f) => !anyRequest.has(f)));
      // The worker's files the gateway process did not already count (shared ones count once).
      const workerBeyond = (counted: string[]) => (label.startsWith('terminal') ? WORKER_PATH.filter((f) => !counted.includes(f)) : []);
      const total = (counted: string[]) => {
        const worker = workerBeyond(counted).length;
        return worker ? `${counted.length} + ${worker} in the terminal worker = ${counted.length + worker}` : `${counted.length}`;
      };
      console.log(`tool_call -> ${label}: all ${total(all)}; call path ${total(path)} product files`);
      for (const f of all) console.log(`  ${path.includes(f) ? 'path' : 'any '}  ${f}`);
      for (const f of workerBeyond(path)) console.log(`  path  ${f}  (worker)`);
    }
  } finally {
    await gw.close();
    session.disconnect();
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
