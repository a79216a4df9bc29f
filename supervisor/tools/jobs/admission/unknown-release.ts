import { existsSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { processIsAlive, signalTree } from '../../../../shared/proc.js';
import { finishJob, getJob, type JobDatabase, type JobRow } from '../store/index.js';

// Releasing an `unknown` job: the one place that decides, with evidence, that nothing of such a job
// still runs. Both job_cancel (the credential holder) and `hermes-mcp-admission reconcile` (the
// operator who lost the credential) come through here, so both apply the same proof.
//
// What a job can leave behind once its gateway is gone: its worker (the init of its PID namespace,
// or the leader of its process group in the weaker isolation modes, so killing it takes the tree),
// the processes of its direct cgroup (`HERMES_MCP_CGROUP_ROOT/hermes-job-<hex>`), and those of its
// transient systemd scope (`hermesjobs.slice/hermes-job-<hex>.scope` in the user manager's cgroup
// tree). The scope is looked up in the cgroup filesystem, read-only, never through systemctl: that
// would talk to (and could activate) a user manager, and the kernel's view is the one that counts.

/** The slice every job's systemd scope is placed in (runner/launch.ts) and looked up in here. */
export const JOB_SLICE = 'hermesjobs.slice';
const GONE_WAIT_MS = 2000;
const POLL_MS = 50;

interface ReleaseOptions {
  now: number;
  /** The termination reason recorded when the job is released. */
  reason: string;
  /** The gateway's delegated cgroup root (HERMES_MCP_CGROUP_ROOT), when one is configured. */
  cgroupRoot?: string;
  /** The cgroup v2 mount (tests point it at a directory of their own). */
  cgroupMount?: string;
}

export interface ReleaseOutcome {
  released: boolean;
  row: JobRow;
  /** What was still there and got killed: `worker pid N`, `cgroup DIR (N processes)`. */
  killed: string[];
  /** Why it stays unknown (something survived the kill). */
  remaining?: string;
}

/** The cgroup directories a job's processes may still sit in (existing ones only). */
function jobCgroups(row: JobRow, options: Pick<ReleaseOptions, 'cgroupRoot' | 'cgroupMount'>): Array<{ dir: string; ours: boolean }> {
  if (!row.unit) return [];
  const uid = process.getuid?.() ?? 0;
  const mount = options.cgroupMount ?? '/sys/fs/cgroup';
  const scope = join(mount, 'user.slice', `user-${uid}.slice`, `user@${uid}.service`, JOB_SLICE, `${row.unit}.scope`);
  const candidates = [{ dir: scope, ours: false }, ...(options.cgroupRoot ? [{ dir: join(options.cgroupRoot, row.unit), ours: true }] : [])];
  return candidates.filter((c) => existsSync(join(c.dir, 'cgroup.procs')));
}

function cgroupPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // removed meanwhile: empty
  }
}

/** What of an unknown job still runs, read-only (the dry run of a release): empty when nothing does. */
export function remainsOf(row: JobRow, options: Pick<ReleaseOptions, 'cgroupRoot' | 'cgroupMount'>): string[] {
  const alive = row.worker_pid && row.worker_start && processIsAlive(row.worker_pid, row.worker_start) ? [`worker pid ${row.worker_pid}`] : [];
  const cgroups = jobCgroups(row, options).flatMap((c) => {
    const n = cgroupPids(c.dir).length;
    return n > 0 ? [`cgroup ${c.dir} (${n} processes)`] : [];
  });
  return [...alive, ...cgroups];
}

async function until(done: () => boolean): Promise<boolean> {
  for (let waited = 0; !done() && waited < GONE_WAIT_MS; waited += POLL_MS) await delay(POLL_MS);
  return done();
}

/**
 * Makes sure no process of unknown job `id` remains (killing what does) and only then records it
 * `cancelled` with `reason`, which frees its capacity and workspace. A job that is not (or no
 * longer) unknown is returned as it is; one with a survivor stays unknown.
 */
export async function releaseUnknownJob(db: JobDatabase, id: string, options: ReleaseOptions): Promise<ReleaseOutcome> {
  const row = getJob(db, id);
  if (!row) throw new Error(`job ${id} disappeared`);
  if (row.state !== 'unknown') return { released: false, row, killed: [] };
  const killed: string[] = [];
  if (row.worker_pid && row.worker_start && processIsAlive(row.worker_pid, row.worker_start)) {
    killed.push(`worker pid ${row.worker_pid}`);
    signalTree(row.worker_pid);
    if (!(await until(() => !processIsAlive(row.worker_pid!, row.worker_start!)))) {
      return { released: false, row, killed, remaining: `worker pid ${row.worker_pid} survived SIGKILL` };
    }
  }
  for (const cgroup of jobCgroups(row, options)) {
    const pids = cgroupPids(cgroup.dir);
    if (pids.length > 0) {
      killed.push(`cgroup ${cgroup.dir} (${pids.length} processes)`);
      for (const pid of pids) signalTree(pid);
      if (!(await until(() => cgroupPids(cgroup.dir).length === 0))) return { released: false, row, killed, remaining: `cgroup ${cgroup.dir} still holds processes` };
    }
    // Our own cgroup goes with the job; a scope's is systemd's to collect once it is empty.
    if (cgroup.ours) {
      try {
        rmdirSync(cgroup.dir);
      } catch {
        // the kernel keeps a cgroup until its last process is reaped; an empty one is harmless
      }
    }
  }
  // Guarded on the job still being active: a concurrent release (another cancel, another operator) wins once.
  const released = finishJob(db, id, { state: 'cancelled', exitCode: null, signal: null, reason: options.reason }, options.now);
  return { released, row: getJob(db, id)!, killed };
}
