// Job admission benchmark on one fresh SQLite job database (supervisor/tools/jobs/store/database.ts), with the
// admitting done by separate processes (tests/helpers/admission-racer.ts), as two gateway
// processes would:
//
//   1. throughput: two racers in churn mode (admit, then finish at once) on disjoint jobs,
//      workdirs and sessions, released at one instant, for BENCH_ADMISSION_MS or until their jobs
//      run out: admissions/s combined and per process, admitJob latency. No rule can refuse here
//      (at most 2 jobs are ever active), so this is the cost of admission itself.
//   2. contention: two racers each keeping up to 3 admitted jobs for 1 ms, on nested and identical
//      workdirs and shared sessions, for BENCH_CONTENTION_MS: together they want 6 active against
//      a limit of 4, so the rules refuse all the time; this phase is what makes the violation
//      count meaningful.
//   In both, a test-only trigger aborts any admission that would leave the active set outside the
//   rules at that moment, and the rows are checked again afterwards (each admitted job finished
//   exactly once, by the racer that admitted it, none left active).
//   3. job_status latency: authorizedJob(db, id, token) (the read job_status does) p50/p99 in this
//      process, idle and then while one racer churns admissions in another process.
//   4. job_status end to end: the real gateway bin, a modern SDK client, a running job; job_status
//      round trips against tool_search round trips on the same connection (ratio).
//
// Target printed: >= 500 admissions/s combined. Exits non-zero on any violation. Everything this
// starts is stopped by pid before it exits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdirSync, writeFileSync } from 'node:fs';
import { launchGateway, nodeFlags, started } from './launch.js';
import { authorizedJob, nestedPaths, openJobDatabase, prepareJob, type AdmissionRules, type JobDatabase } from '../supervisor/tools/jobs/store/index.js';
import {
  installInvariantTrigger,
  invariantViolations,
  killRacers,
  pct,
  releaseTogether,
  startRacer,
  type RacerConfig,
  type RacerJob,
  type RacerResult,
  type RunningRacer,
} from '../tests/helpers/admission-racer.js';
import { env, runBench } from './measure.js';

const JOBS = env('BENCH_ADMISSION_JOBS', 6000);
const DURATION_MS = env('BENCH_ADMISSION_MS', 3000);
const CONTENTION_MS = env('BENCH_CONTENTION_MS', 1500);
const CONTENTION_JOBS = env('BENCH_CONTENTION_JOBS', 3000);
/** Same, nested, sibling-with-common-prefix and disjoint directories, as in the race test. */
const NESTED_WORKDIRS = ['/n/a', '/n/a/b', '/n/c', '/n/c', '/n/d/e', '/n/d', '/n/ab', '/n/a/b/c', '/n/f', '/n/f/g/h', '/n/c/x', '/n/g'];
const STATUS_WARMUP = env('BENCH_STATUS_WARMUP', 200);
const STATUS_READS = env('BENCH_STATUS_READS', 2000);
const CHURN_JOBS = env('BENCH_STATUS_CHURN_JOBS', 4000);
const TARGET_PER_S = 500;
const RULES: AdmissionRules = { maxActive: 4, maxPerSession: 2, maxHeavy: Infinity, memoryBudget: Infinity };
const RULES_JSON: RacerConfig['rules'] = { maxActive: RULES.maxActive, maxPerSession: RULES.maxPerSession, maxHeavy: null, memoryBudget: null };
/** Outcomes of an admission attempt that are the rules working, not a fault. */
const REFUSALS = new Set(['ALREADY_STARTED', 'JOB_QUOTA_EXCEEDED', 'JOB_SESSION_QUOTA_EXCEEDED', 'JOB_WORKSPACE_BUSY', 'JOB_HEAVY_BUSY', 'JOB_MEMORY_UNAVAILABLE']);

// ---- process bookkeeping: everything started here is stopped by pid ----

const racers = new Set<RunningRacer>();
const dirs: string[] = [];
let db: JobDatabase | undefined;

let cleaned = false;
function cleanup(): void {
  if (cleaned) return;
  cleaned = true;
  killRacers(racers);
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (db?.open) db.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

// ---- helpers ----

function prepareMany(d: JobDatabase, n: number, workdir: (i: number) => string): RacerJob[] {
  const out: RacerJob[] = [];
  for (let i = 0; i < n; i++) {
    const r = prepareJob(d, { command: 'true', workdir: workdir(i), maxRuntime: 600, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'cap:bench' }, { maxPrepared: 1_000_000, ttlMs: 3_600_000 }, Date.now());
    out.push({ id: r.job_id, token: r.recovery_token! });
  }
  return out;
}

function racer(dir: string, dbPath: string, cfg: Omit<RacerConfig, 'db' | 'rules'>): RunningRacer {
  const r = startRacer({ ...cfg, db: dbPath, rules: RULES_JSON }, join(dir, `${cfg.name}.json`), nodeFlags);
  racers.add(r);
  r.result.finally(() => racers.delete(r)).catch(() => {});
  return r;
}

const count = (d: JobDatabase, sql: string, ...args: unknown[]) => (d.prepare(sql).get(...args) as { n: number }).n;

/** Attempts that ended in neither an admission nor a refusal by a rule: faults. */
const faults = (r: RacerResult) => Object.entries(r.refused_by_code).filter(([code]) => !REFUSALS.has(code));

// ---- main ----

async function main(): Promise<void> {
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'hmcp-bench-admission-'));
  dirs.push(dir);
  const dbPath = join(dir, 'gateway-jobs.sqlite3');
  db = openJobDatabase(dbPath);
  installInvariantTrigger(db, RULES);

  // 1. Two processes churning admissions on disjoint jobs, workdirs and sessions.
  const tp = performance.now();
  const jobs = prepareMany(db, JOBS, (i) => `/bench/w${i}`);
  const prepMs = performance.now() - tp;
  const churn = { mode: 'churn' as const, holdCount: 0, durationMs: DURATION_MS };
  const pair = [
    racer(dir, dbPath, { ...churn, name: 'racer-a', jobs: jobs.filter((_, i) => i % 2 === 0), sessions: ['a0', 'a1', 'a2', 'a3'], seed: 1 }),
    racer(dir, dbPath, { ...churn, name: 'racer-b', jobs: jobs.filter((_, i) => i % 2 === 1), sessions: ['b0', 'b1', 'b2', 'b3'], seed: 2 }),
  ];
  await releaseTogether(pair);
  const results = await Promise.all(pair.map((r) => r.result));

  const violations: string[] = [];
  /** Each admitted job finished once, by the racer that admitted it; no fault outcomes. */
  const postCheck = (rs: RacerResult[]) => {
    for (const r of rs) {
      for (const [code, n] of faults(r)) violations.push(`${r.name}: ${n}x ${code} (${r.unexpected_messages[code] ?? ''})`);
      const rows = count(db!, `SELECT count(*) AS n FROM jobs WHERE state = 'succeeded' AND instance_id = ?`, r.name);
      if (rows !== r.admitted) violations.push(`${r.name} admitted ${r.admitted}, rows say ${rows} succeeded`);
      if (r.finished !== r.admitted) violations.push(`${r.name} finished ${r.finished} of the ${r.admitted} jobs it admitted`);
    }
    const active = count(db!, `SELECT count(*) AS n FROM jobs WHERE state IN ('starting','running','unknown')`);
    if (active !== 0) violations.push(`${active} jobs still active after the racers finished theirs`);
    violations.push(...invariantViolations(db!, RULES, nestedPaths));
  };
  postCheck(results);
  const admitted = results.reduce((s, r) => s + r.admitted, 0);
  const wall = Math.max(...results.map((r) => r.elapsed_ms));
  const combined = admitted / (wall / 1000);

  // 2. Contention: the rules bind all the time.
  const contended = prepareMany(db, CONTENTION_JOBS, (i) => NESTED_WORKDIRS[i % NESTED_WORKDIRS.length]!);
  const sessions = ['s0', 's1', 's2', 's3', 's4', 's5'];
  const press = { mode: 'churn' as const, holdCount: 3, holdMs: 1, durationMs: CONTENTION_MS, jobs: contended, sessions };
  const pressPair = [racer(dir, dbPath, { ...press, name: 'contend-a', order: 'given', seed: 4 }), racer(dir, dbPath, { ...press, name: 'contend-b', order: 'shuffle', seed: 5 })];
  await releaseTogether(pressPair);
  const pressed = await Promise.all(pressPair.map((r) => r.result));
  postCheck(pressed);

  // 3. job_status reads in this process, idle, then while a racer churns in another one.
  const readable = jobs.slice(0, 500);
  const statusSamples = (): number[] => {
    const out: number[] = [];
    for (let i = 0; i < STATUS_WARMUP + STATUS_READS; i++) {
      const j = readable[(i * 7919) % readable.length]!;
      const s = performance.now();
      authorizedJob(db!, j.id, j.token);
      const dt = performance.now() - s;
      if (i >= STATUS_WARMUP) out.push(dt);
    }
    return out.sort((a, b) => a - b);
  };
  const idle = statusSamples();
  const churnJobs = prepareMany(db, CHURN_JOBS, (i) => `/bench/status/w${i}`);
  const churner = racer(dir, dbPath, { mode: 'churn', holdCount: 0, durationMs: 60_000, name: 'racer-status', jobs: churnJobs, sessions: ['c0', 'c1'], seed: 3 });
  await releaseTogether([churner], 20);
  await new Promise((r) => setTimeout(r, 200)); // let it get going
  const before = count(db, `SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'`);
  const tr = performance.now();
  const busy = statusSamples();
  const readMs = performance.now() - tr;
  const during = count(db, `SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'`) - before;
  churner.stop();
  const churned = await churner.result;
  postCheck([churned]);

  // 4. job_status over MCP on the real gateway, next to tool_search on the same connection.
  const mcp = await mcpStatusLatency(dir);

  // ---- report ----
  const ms = (n: number) => `${n.toFixed(3).padStart(7)} ms`;
  const rate = (r: RacerResult) => r.admitted / (r.elapsed_ms / 1000);
  const refusals = (r: RacerResult) => Object.entries(r.refused_by_code).map(([c, n]) => `${c} ${n}`).join(', ') || 'none';
  console.log(`bench/admission: Node ${process.version} ${nodeFlags.join(' ')}, better-sqlite3 WAL synchronous=NORMAL, ${JOBS} jobs prepared in ${prepMs.toFixed(0)} ms`);
  for (const r of results) {
    console.log(
      `${`${r.name} (pid ${r.pid}) churn`.padEnd(34)} ${String(r.admitted).padStart(6)} admitted in ${r.elapsed_ms.toFixed(0).padStart(5)} ms = ${rate(r).toFixed(0).padStart(6)}/s` +
        `  admitJob p50 ${ms(r.latency_ms.p50)}  p99 ${ms(r.latency_ms.p99)}  max ${ms(r.latency_ms.max)}  refusals: ${refusals(r)}`,
    );
  }
  console.log(`combined: ${admitted} admissions in ${wall.toFixed(0)} ms = ${combined.toFixed(0)}/s vs target ${TARGET_PER_S}/s: ratio ${(combined / TARGET_PER_S).toFixed(2)}x ${combined >= TARGET_PER_S ? 'OK' : 'UNDER'}`);
  for (const r of pressed) {
    console.log(
      `${`${r.name} (pid ${r.pid}) contended`.padEnd(34)} ${String(r.admitted).padStart(6)} admitted in ${r.elapsed_ms.toFixed(0).padStart(5)} ms = ${rate(r).toFixed(0).padStart(6)}/s` +
        `  of ${r.attempts} attempts; refusals: ${refusals(r)}`,
    );
  }
  const row = (label: string, s: number[]) => `${label.padEnd(50)} n=${String(s.length).padStart(5)}  p50 ${ms(pct(s, 50))}  p99 ${ms(pct(s, 99))}  max ${ms(s[s.length - 1] ?? 0)}`;
  console.log(row('job_status read (authorizedJob), idle', idle));
  console.log(row('job_status read (authorizedJob), racer churning', busy));
  console.log(`  racer-status admitted ${during} jobs during those ${readMs.toFixed(0)} ms of reads (${churned.admitted} in all, ${rate(churned).toFixed(0)}/s alone, admitJob p99 ${churned.latency_ms.p99.toFixed(3)} ms)`);
  console.log(row('job_status over MCP (tool_call, running job)', mcp.status));
  console.log(row('tool_search over MCP (same connection)', mcp.search));
  console.log(`  job_status / tool_search p50 ratio ${(pct(mcp.status, 50) / pct(mcp.search, 50)).toFixed(2)}x`);
  console.log(`violations: ${violations.length}${violations.length ? `\n  ${violations.join('\n  ')}` : ' (trigger armed for every admission in all three phases; post-check: each admitted job finished once by its racer, none left active)'}`);
  console.log(`total run ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (violations.length > 0) process.exitCode = 1;
}

/** Round trips of job_status (a running job) and tool_search against the gateway bin. */
async function mcpStatusLatency(dir: string): Promise<{ status: number[]; search: number[] }> {
  const home = join(dir, 'home');
  mkdirSync(join(home, 'w'), { recursive: true });
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const { child, port } = await launchGateway(home, { HERMES_MCP_OPTIONAL_COMPONENTS: 'memory' });
  const client = new Client({ name: 'bench-admission', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    const call = async (name: string, args: Record<string, unknown>, token?: string) =>
      ((await client.callTool({ name: 'tool_call', arguments: { calls: [{ name, arguments: args }], ...(token ? { session_token: token } : {}) } })) as { structuredContent: Record<string, unknown> }).structuredContent;
    const token = (await call('session_open', {})).session_token as string;
    const prep = await call('job_prepare', { command: 'sleep 120', workdir: join(home, 'w') }, token);
    const job = { job_id: prep.job_id, recovery_token: prep.recovery_token };
    await call('job_start', job, token);
    const sample = async (fn: () => Promise<unknown>) => {
      const out: number[] = [];
      for (let i = 0; i < 50 + 300; i++) {
        const s = performance.now();
        await fn();
        if (i >= 50) out.push(performance.now() - s);
      }
      return out.sort((a, b) => a - b);
    };
    const status = await sample(() => call('job_status', job));
    const search = await sample(() => client.callTool({ name: 'tool_search', arguments: { queries: ['job status'] } }));
    await call('job_cancel', job);
    return { status, search };
  } finally {
    await client.close().catch(() => {});
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

runBench(main, cleanup);
