import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../shared/package-root.js';
import { isGatewayError } from '../../shared/errors.js';
import { admitJob, finishJob, type AdmissionRules } from '../../supervisor/tools/jobs/store/index.js';
import { openJobDatabase, type JobDatabase } from '../../supervisor/tools/jobs/store/index.js';
import { mulberry32 } from './random.js';

// An admission racer: a separate process that opens the job database and, on a start signal,
// admits pre-prepared jobs as fast as it can. It checks nothing itself: it counts what admitJob
// said and prints one JSON line. The parent (tests/tools/jobs/store/admission.test.ts, bench/admission.ts)
// judges the database afterwards.
//
//   node dist/tests/helpers/admission-racer.js <config.json>
//
// Protocol on the pipes: the racer prints `{"ready":true}` once the database is open, then waits
// for a line `go <epoch-ms>` on stdin and spins until that instant, so two racers started by one
// parent begin within microseconds of each other. A line `stop` ends a running churn early. The
// last stdout line is the RacerResult.
//
// Modes:
//   hold  – one pass (or `passes`) over the job list; admitted jobs are never finished, so the
//           active set only grows and the final state is the worst moment of the race.
//   churn – cycles over the job list until every job left the list or `durationMs` passed; each
//           admitted job is kept for `holdMs` and at most `holdCount` are kept (the oldest is
//           finished first; holdCount 0 = finish at once, the admissions/s figure). Refused jobs
//           stay in the list and are retried; a job another process already started leaves it.
//
// Everything the parent side needs (config and result types, spawning, the invariant trigger and
// the post-check) lives here too, so the test and the bench share one copy.

export interface RacerJob {
  id: string;
  token: string;
}

export interface RacerConfig {
  db: string;
  name: string;
  mode: 'hold' | 'churn';
  jobs: RacerJob[];
  sessions: string[];
  /** Infinity does not survive JSON: null there means Infinity. */
  rules: { maxActive: number; maxPerSession: number; maxHeavy: number | null; memoryBudget: number | null };
  order?: 'given' | 'reverse' | 'shuffle';
  seed?: number;
  passes?: number;
  holdCount?: number;
  /** churn: finish a kept job once it was held this long (default: only holdCount decides). */
  holdMs?: number;
  durationMs?: number;
}

export interface RacerResult {
  name: string;
  pid: number;
  attempts: number;
  admitted: number;
  finished: number;
  /** GatewayError codes, SQLite error codes, or ALREADY_STARTED (admitJob's `admitted: false`). */
  refused_by_code: Record<string, number>;
  /** The first message seen per code that is not a GatewayError (a trigger's RAISE text, SQLITE_BUSY…). */
  unexpected_messages: Record<string, string>;
  elapsed_ms: number;
  latency_ms: { p50: number; p99: number; max: number };
}

export const RACER_ENTRY = join(packageRoot(), 'dist', 'tests', 'helpers', 'admission-racer.js');


/** The p-th percentile of an ascending sample (0 for an empty one). */
export const pct = (s: number[], p: number) => (s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!);

async function runRacer(configPath: string): Promise<void> {
  const cfg = JSON.parse(readFileSync(configPath, 'utf8')) as RacerConfig;
  const rules: AdmissionRules = {
    maxActive: cfg.rules.maxActive,
    maxPerSession: cfg.rules.maxPerSession,
    maxHeavy: cfg.rules.maxHeavy ?? Infinity,
    memoryBudget: cfg.rules.memoryBudget ?? Infinity,
  };
  const rand = mulberry32(cfg.seed ?? 1);
  let jobs = [...cfg.jobs];
  if (cfg.order === 'reverse') jobs.reverse();
  if (cfg.order === 'shuffle') {
    for (let i = jobs.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [jobs[i], jobs[j]] = [jobs[j]!, jobs[i]!];
    }
  }
  const db: JobDatabase = openJobDatabase(cfg.db, { create: false });
  const instance = { id: cfg.name, pid: process.pid, start: String(Date.now()) };

  let stopRequested = false;
  let goAt: number | undefined;
  let goResolve: () => void = () => {};
  const goSeen = new Promise<void>((resolve) => (goResolve = resolve));
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const go = /^go (\d+)$/.exec(line.trim());
    if (go) {
      goAt = Number(go[1]);
      goResolve();
    } else if (line.trim() === 'stop') {
      stopRequested = true;
    }
  });
  // The parent went away: stop at the next yield instead of racing an orphaned database.
  lines.on('close', () => {
    stopRequested = true;
    goResolve();
  });

  // Warm the admission path (statement cache, JIT) so the race is not decided by who compiles first.
  for (let i = 0; i < 50; i++) {
    try {
      admitJob(db, { id: 'job_warmup', token: 'x', sessionId: 'warmup', instance, unit: 'warmup' }, rules, Date.now());
    } catch {
      // JOB_NOT_FOUND, as intended
    }
  }
  process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`);
  await goSeen;
  if (goAt !== undefined) while (Date.now() < goAt); // spin: both racers leave at the same ms

  const result: RacerResult = {
    name: cfg.name,
    pid: process.pid,
    attempts: 0,
    admitted: 0,
    finished: 0,
    refused_by_code: {},
    unexpected_messages: {},
    elapsed_ms: 0,
    latency_ms: { p50: 0, p99: 0, max: 0 },
  };
  const latencies: number[] = [];
  const held: Array<{ id: string; at: number }> = [];
  const holdCount = cfg.holdCount ?? 0;
  const holdMs = cfg.holdMs ?? Infinity;
  const count = (code: string) => (result.refused_by_code[code] = (result.refused_by_code[code] ?? 0) + 1);
  const finishOldest = () => {
    const { id } = held.shift()!;
    if (finishJob(db, id, { state: 'succeeded', exitCode: 0, signal: null, reason: 'exited' }, Date.now())) result.finished++;
  };

  /** One admission attempt; true when the job should leave this racer's list. */
  const attempt = (job: RacerJob): boolean => {
    while (held.length > 0 && performance.now() - held[0]!.at >= holdMs) finishOldest();
    const sessionId = cfg.sessions[Math.floor(rand() * cfg.sessions.length)]!;
    result.attempts++;
    const t0 = performance.now();
    try {
      const r = admitJob(db, { id: job.id, token: job.token, sessionId, instance, unit: `hmcp-job-${job.id}` }, rules, Date.now());
      latencies.push(performance.now() - t0);
      if (!r.admitted) {
        count('ALREADY_STARTED');
        return true;
      }
      result.admitted++;
      if (cfg.mode === 'churn') {
        held.push({ id: job.id, at: performance.now() });
        while (held.length > holdCount) finishOldest();
      }
      return true;
    } catch (e) {
      latencies.push(performance.now() - t0);
      if (isGatewayError(e)) {
        count(e.code);
      } else {
        const code = String((e as { code?: unknown }).code ?? (e as Error).name ?? 'ERROR');
        count(code);
        result.unexpected_messages[code] ??= (e as Error).message;
      }
      return false;
    }
  };

  const t0 = performance.now();
  const deadline = cfg.durationMs !== undefined ? t0 + cfg.durationMs : Infinity;
  if (cfg.mode === 'hold') {
    for (let pass = 0; pass < (cfg.passes ?? 1) && !stopRequested; pass++) {
      for (const job of jobs) attempt(job);
    }
  } else {
    // Synchronous slices of ~20 ms, then a yield so a `stop` line can arrive.
    while (jobs.length > 0 && !stopRequested && performance.now() < deadline) {
      const sliceEnd = Math.min(deadline, performance.now() + 20);
      const left: RacerJob[] = [];
      let i = 0;
      for (; i < jobs.length && performance.now() < sliceEnd; i++) {
        if (!attempt(jobs[i]!)) left.push(jobs[i]!);
      }
      jobs = [...jobs.slice(i), ...left];
      await new Promise((r) => setImmediate(r));
    }
    while (held.length > 0) finishOldest();
  }
  result.elapsed_ms = performance.now() - t0;
  latencies.sort((a, b) => a - b);
  result.latency_ms = { p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies[latencies.length - 1] ?? 0 };
  db.close();
  lines.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// ---- the parent side ---------------------------------------------------------------------------

export interface RunningRacer {
  child: ChildProcess;
  /** Resolves once the racer opened the database and waits for `go`. */
  ready: Promise<void>;
  /** Resolves with the racer's result line once it exits 0. */
  result: Promise<RacerResult>;
  stop(): void;
}

/**
 * Writes `cfg` (it holds recovery tokens: 0600) to `configPath` and starts a racer on it, with
 * `nodeArgs` before the script (the bench passes the gateway's own Node flags).
 */
export function startRacer(cfg: RacerConfig, configPath: string, nodeArgs: string[] = []): RunningRacer {
  writeFileSync(configPath, JSON.stringify(cfg), { mode: 0o600 });
  const child = spawn(process.execPath, [...nodeArgs, RACER_ENTRY, configPath], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const lines: string[] = [];
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(l);
    if (l.startsWith('{"ready":true')) onReady();
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  const result = exited.then((code) => {
    const last = lines[lines.length - 1];
    if (code !== 0 || !last || last.startsWith('{"ready"')) throw new Error(`racer ${cfg.name} exited with ${code}: ${stderr.slice(0, 2000)}`);
    return JSON.parse(last) as RacerResult;
  });
  // A racer that dies before `ready` must not leave the parent waiting forever.
  const readyOrDead = Promise.race([ready, result.then(() => Promise.reject(new Error(`racer ${cfg.name} exited before ready`)))]);
  result.catch(() => {});
  readyOrDead.catch(() => {});
  return {
    child,
    ready: readyOrDead,
    result,
    stop: () => {
      if (child.exitCode === null && child.stdin!.writable) child.stdin!.write('stop\n');
    },
  };
}

/** Waits until every racer is ready, then releases them all at one instant `leadMs` from now. */
export async function releaseTogether(racers: RunningRacer[], leadMs = 50): Promise<void> {
  await Promise.all(racers.map((r) => r.ready));
  const at = Date.now() + leadMs;
  for (const r of racers) r.child.stdin!.write(`go ${at}\n`);
}

/** Kills (by pid) every racer still alive. */
export function killRacers(racers: Iterable<RunningRacer>): void {
  for (const r of racers) {
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  }
}

export interface InvariantRules {
  maxActive: number;
  maxPerSession: number;
  maxHeavy?: number;
  memoryBudget?: number;
}

const ACTIVE = `('starting','running','unknown')`;
/** True in SQL when workdirs `a` and `b` are the same or one lies inside the other. */
const nestedSql = (a: string, b: string) => `(${a} = ${b} OR instr(${a} || '/', ${b} || '/') = 1 OR instr(${b} || '/', ${a} || '/') = 1)`;

/**
 * A test-only trigger that aborts any state change leaving the active set outside `rules`: a
 * violation at any moment of a race rolls that admission back and reaches the racer as
 * SQLITE_CONSTRAINT_TRIGGER with the message `INVARIANT: …`. It fires on every change into an
 * active state (jobs are only ever inserted as `prepared`, and leaving the active set cannot break
 * a rule), so checking the row just activated against the others is complete, and it stays
 * O(active rows) through the state index however many finished rows the table holds. Workdirs
 * are compared with a trailing slash, so /w/ab is not inside /w/a.
 */
export function installInvariantTrigger(db: JobDatabase, rules: InvariantRules): void {
  const checks = [
    `SELECT RAISE(ABORT, 'INVARIANT: more than ${rules.maxActive} active') WHERE (SELECT count(*) FROM jobs WHERE state IN ${ACTIVE}) > ${rules.maxActive};`,
    `SELECT RAISE(ABORT, 'INVARIANT: a session has more than ${rules.maxPerSession} active') WHERE (SELECT count(*) FROM jobs WHERE state IN ${ACTIVE} AND session_id IS NEW.session_id) > ${rules.maxPerSession};`,
    `SELECT RAISE(ABORT, 'INVARIANT: nested or identical active workdirs') WHERE EXISTS (SELECT 1 FROM jobs o WHERE o.state IN ${ACTIVE} AND o.id <> NEW.id AND ${nestedSql('o.workdir', 'NEW.workdir')});`,
  ];
  if (rules.maxHeavy !== undefined && Number.isFinite(rules.maxHeavy)) {
    checks.push(`SELECT RAISE(ABORT, 'INVARIANT: more than ${rules.maxHeavy} heavy active') WHERE (SELECT count(*) FROM jobs WHERE state IN ${ACTIVE} AND heavy = 1) > ${rules.maxHeavy};`);
  }
  if (rules.memoryBudget !== undefined && Number.isFinite(rules.memoryBudget)) {
    checks.push(`SELECT RAISE(ABORT, 'INVARIANT: memory reservations over ${rules.memoryBudget}') WHERE (SELECT coalesce(sum(memory_reservation), 0) FROM jobs WHERE state IN ${ACTIVE}) > ${rules.memoryBudget};`);
  }
  db.exec(`CREATE TRIGGER race_invariants AFTER UPDATE OF state ON jobs WHEN NEW.state IN ${ACTIVE} BEGIN ${checks.join(' ')} END;`);
}

/** The same invariants checked in JavaScript on the rows as they are now; each violation described. */
export function invariantViolations(db: JobDatabase, rules: InvariantRules, nested: (a: string, b: string) => boolean): string[] {
  const active = db.prepare(`SELECT id, session_id, workdir, heavy, memory_reservation FROM jobs WHERE state IN ${ACTIVE}`).all() as Array<{
    id: string;
    session_id: string | null;
    workdir: string;
    heavy: number;
    memory_reservation: number;
  }>;
  const out: string[] = [];
  if (active.length > rules.maxActive) out.push(`${active.length} active > ${rules.maxActive}`);
  const perSession = new Map<string | null, number>();
  for (const a of active) perSession.set(a.session_id, (perSession.get(a.session_id) ?? 0) + 1);
  for (const [s, n] of perSession) if (n > rules.maxPerSession) out.push(`session ${s} has ${n} active > ${rules.maxPerSession}`);
  for (let i = 0; i < active.length; i++) {
    for (let j = i + 1; j < active.length; j++) {
      if (nested(active[i]!.workdir, active[j]!.workdir)) out.push(`active ${active[i]!.id} (${active[i]!.workdir}) and ${active[j]!.id} (${active[j]!.workdir}) nest`);
    }
  }
  const heavy = active.filter((a) => a.heavy).length;
  if (rules.maxHeavy !== undefined && heavy > rules.maxHeavy) out.push(`${heavy} heavy active > ${rules.maxHeavy}`);
  const reserved = active.reduce((s, a) => s + a.memory_reservation, 0);
  if (rules.memoryBudget !== undefined && reserved > rules.memoryBudget) out.push(`reservations ${reserved} > budget ${rules.memoryBudget}`);
  return out;
}

const invokedDirectly = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (invokedDirectly) {
  const configPath = process.argv[2];
  if (!configPath) {
    process.stderr.write('usage: admission-racer.js <config.json>\n');
    process.exit(2);
  }
  runRacer(configPath).catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
