import { appendFileSync, chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { activeJobs, getJob, type JobDatabase, type JobRow } from '../store/index.js';
import { releaseUnknownJob, remainsOf } from './unknown-release.js';

// `hermes-mcp-admission reconcile`: the operator's way out when `unknown` jobs (left by a gateway
// that was killed) hold the host's job capacity and nobody holds their recovery tokens any more.
// Each one is released exactly as job_cancel releases an unknown job (unknown-release.ts: kill
// whatever of it remains, and only with nothing left record it `cancelled`), with its own
// termination reason and one audit line per release. A dry run by default: it shows what --apply
// would do and changes nothing.

export const EXIT_NOT_RELEASED = 1;
export const RECONCILE_REASON = 'operator_reconciled: released by hermes-mcp-admission reconcile; no process of the job remains';

interface Out {
  print(obj: object, human: string): void;
}

export interface ReconcileOptions {
  database: string;
  jobId?: string;
  apply: boolean;
  /** HERMES_MCP_CGROUP_ROOT of the gateway, where a job's direct cgroup may remain. */
  cgroupRoot?: string;
}

/** Where each release is recorded: beside the database, like the jobs' exit records (0600, append-only). */
export const auditLogPath = (database: string) => `${database}-audit.jsonl`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function audit(database: string, row: JobRow, killed: string[], now: number): void {
  const path = auditLogPath(database);
  const line = { time: new Date(now).toISOString(), action: 'reconcile', operator_uid: process.getuid?.(), operator: userInfo().username, job: row.id, workdir: row.workdir, previous_reason: row.termination_reason, killed, state: 'cancelled', reason: RECONCILE_REASON };
  appendFileSync(path, `${JSON.stringify(line)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

function targets(db: JobDatabase, jobId: string | undefined): JobRow[] {
  if (jobId === undefined) return activeJobs(db).filter((j) => j.state === 'unknown');
  const row = getJob(db, jobId);
  if (!row) throw new GatewayError(ErrorCode.JOB_NOT_FOUND, `no job ${jobId} in this database`);
  if (row.state !== 'unknown') throw new GatewayError(ErrorCode.JOB_NOT_FOUND, `job ${jobId} is ${row.state}, not unknown: reconcile releases only unknown jobs (job_cancel stops a live one)`);
  return [row];
}

export async function reconcile(db: JobDatabase, out: Out, options: ReconcileOptions): Promise<number> {
  const cgroup = options.cgroupRoot ? { cgroupRoot: options.cgroupRoot } : {};
  const jobs = targets(db, options.jobId);
  if (!options.apply) {
    const listed = jobs.map((j) => ({ id: j.id, workdir: j.workdir, started_at: iso(j.started_at), reason: j.termination_reason, remains: remainsOf(j, cgroup) }));
    const lines = listed.map((j) => `  ${j.id}  ${j.workdir}  started ${j.started_at ?? '-'}  ${j.remains.length ? `still running: ${j.remains.join(', ')} (--apply kills it)` : 'nothing of it runs'}`);
    out.print(
      { apply: false, unknown_jobs: listed },
      listed.length === 0 ? 'no unknown jobs' : `unknown jobs holding capacity (dry run; nothing changed):\n${lines.join('\n')}\nrun again with --apply to release them`,
    );
    return 0;
  }
  const results = [];
  for (const job of jobs) {
    const now = Date.now();
    const outcome = await releaseUnknownJob(db, job.id, { now, reason: RECONCILE_REASON, ...cgroup });
    if (outcome.released) {
      audit(options.database, job, outcome.killed, now);
      // An exit record written after the restart's reconciliation is moot now; the receipt is final.
      rmSync(join(`${options.database}-exits`, `${job.id}.json`), { force: true });
    }
    results.push({ id: job.id, released: outcome.released, state: outcome.row.state, killed: outcome.killed, ...(outcome.remaining ? { remaining: outcome.remaining } : {}) });
  }
  const lines = results.map((r) => `  ${r.id}  ${r.released ? `released (cancelled)${r.killed.length ? `; killed ${r.killed.join(', ')}` : ''}` : `NOT released: ${r.remaining ?? `now ${r.state}`}`}`);
  out.print({ apply: true, results }, results.length === 0 ? 'no unknown jobs' : `reconciled:\n${lines.join('\n')}`);
  return results.every((r) => r.released || r.state !== 'unknown') ? 0 : EXIT_NOT_RELEASED;
}
