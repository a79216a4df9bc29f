import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { settledWithin } from '../../../../shared/settle.js';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { withKeyedLocks } from '../../../../shared/keyed-lock.js';
import { processIsAlive, processStartTime } from '../../../../shared/proc.js';
import type { ResourceProfile } from '../../../../policy/resource-policy.js';
import type { ProcessRegistry, TrackedProcess } from '../../processes/process-manage/index.js';
import type { WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';
import { assertCanStartWork } from '../../../platform/spawning/resource-policy.js';
import { admissionRules, assertHeadroom, reservationFor } from '../admission/index.js';
import { admitJob, authorizedJob, cancelPrepared, cancelRequestsFor, finishJob, getJob, isFinal, JobChanges, recordOutput, recordSignalPause, sweepJobs } from '../store/index.js';
import type { Instance, JobDatabase, JobRow } from '../store/index.js';
import { cancelThroughDatabase, cancelUnknown } from './remote-cancel.js';
import { launchJob, type LaunchSite } from './launch.js';
import { LocalJob, type StopReason } from './local-job.js';
import { enforceOrphanDeadlines, reconcileOrphanJob, reconcileOrphanJobs } from './orphans.js';
import { monotonicMs } from '../../../../shared/clock.js';

// Runs admitted jobs and keeps their receipts true.
//
// A job's work is a background process in the native registry (Hermes' terminal background=true,
// persist_on_release=true): its own worker and PID namespace, under a systemd scope in
// hermesjobs.slice (or a direct cgroup) with the profile's limits when the resource policy is
// enforced. It survives HTTP disconnects and session expiry; only its deadline, a cancel, or the
// gateway's own shutdown stop it, always TERM first and KILL of the whole tree after a grace period.
//
// Every gateway process is an *instance* (random id + pid + process start time) and stamps the jobs
// it launches. The maintenance loop flushes output, enforces deadlines, honours cancel requests made
// through other instances, expires unused preparations, drops old receipts and reconciles the jobs
// of instances that no longer exist: their worker wrote the command's outcome to an exit record if
// it got that far; otherwise completion cannot be proven and the job becomes `unknown`, keeping its
// capacity and workspace until someone cancels it (which first makes sure no process of it remains).
//
// Time comes from an injectable clock (`now`, Date.now by default): it stamps every receipt and
// decides what is due (prepare expiry, deadlines, the KILL after the grace period, receipt
// retention), so those can be exercised by moving the clock instead of waiting. Waits that pace
// real work (a job_status wait, the grace given to a cancelled process) stay on real timers.

const RECONCILE_EVERY_TICKS = 5;

export class JobRunner {
  readonly instance: Instance;
  /** SIGUSR1/SIGUSR2: the local operator pausing fresh starts on this gateway process. */
  private paused = false;

  /** SIGUSR1's pause of fresh starts on this process; recorded in the database for the operator CLI. */
  get signalPaused(): boolean {
    return this.paused;
  }

  set signalPaused(paused: boolean) {
    this.paused = paused;
    try {
      recordSignalPause(this.db, this.instance, paused, this.now());
    } catch (e) {
      // The pause itself is in force either way; only the CLI's view of it is missing.
      this.log.error({ event: 'signal_pause_not_recorded', error: (e as Error).message }, 'could not record the signal pause in the job database');
    }
  }
  private readonly local = new Map<string, LocalJob>();
  private readonly changes = new JobChanges();
  private readonly exitsDir: string;
  private readonly site: LaunchSite;
  private timer?: NodeJS.Timeout;
  private ticks = 0;
  private closing = false;
  private admittedSinceCheckpoint = false;

  constructor(
    private readonly db: JobDatabase,
    private readonly runtime: WorkerRuntime,
    private readonly processes: ProcessRegistry,
    private readonly log: Logger,
    readonly now: () => number = Date.now,
  ) {
    this.site = { db, runtime, processes, log, now };
    this.instance = { id: randomBytes(8).toString('hex'), pid: process.pid, start: processStartTime(process.pid) ?? '0' };
    // Exit records live beside the database: whichever gateway opens it next can read them.
    this.exitsDir = `${runtime.config.jobsDatabase}-exits`;
    mkdirSync(this.exitsDir, { recursive: true, mode: 0o700 });
    this.reconcileOrphans();
    this.timer = setInterval(() => this.tick(), runtime.config.limits.jobMaintenanceIntervalSeconds * 1000);
    this.timer.unref();
  }

  get limits() {
    return this.runtime.config.limits;
  }

  get resources() {
    return this.runtime.resources;
  }

  get activeLocal(): number {
    return this.local.size;
  }

  /** Serialises start and cancel per job, so one slow job never blocks another. */
  private withLock<T>(id: string, work: () => Promise<T>): Promise<T> {
    return withKeyedLocks([`job:${id}`], work);
  }

  /** The memory a job of this profile reserves under the policy in force (0 in development mode). */
  reservationFor(profile: ResourceProfile): number {
    return reservationFor(this.runtime.resources, profile);
  }

  /** `guard`: judges the prepared job's command once more before it is admitted (throws to refuse; the job stays prepared). */
  async start(id: string, token: string, sessionId: string, guard?: (job: JobRow) => void): Promise<JobRow> {
    return this.withLock(id, async () => {
      const existing = authorizedJob(this.db, id, token);
      // An expired preparation is an error whether the maintenance sweep or admission noticed it.
      if (existing.state === 'expired') throw new GatewayError(ErrorCode.JOB_EXPIRED, `job ${id} expired unstarted; prepare it again with a new idempotency key`);
      // An authorized repeat start answers with the job as it is: never a second launch.
      if (existing.state !== 'prepared') return existing;
      guard?.(existing);
      assertCanStartWork(this.runtime.resources, 'job_start');
      if (this.closing) throw new GatewayError(ErrorCode.JOB_ADMISSION_PAUSED, 'the gateway is shutting down; start the job on the next one');
      if (this.signalPaused) throw new GatewayError(ErrorCode.JOB_ADMISSION_PAUSED, 'the local operator paused fresh job starts on this gateway (SIGUSR1); the prepared job stays valid');
      const reservation = this.reservationFor(existing.profile as ResourceProfile);
      assertHeadroom(this.runtime.resources, reservation);
      // Checked before admission: a job admitted and then unable to start would be lost.
      if (!this.processes.hasCapacity) throw new GatewayError(ErrorCode.BUSY, 'too many background processes are running on this gateway; the prepared job stays valid, start it later');
      const unit = `hermes-job-${id.slice(4)}`;
      const result = admitJob(this.db, { id, token, sessionId, instance: this.instance, unit }, admissionRules(this.runtime.resources, this.limits), this.now());
      if (!result.admitted) return result.job;
      this.admittedSinceCheckpoint = true;
      await this.launch(result.job, result.command, sessionId);
      return getJob(this.db, id)!;
    });
  }

  private async launch(job: JobRow, command: string, ownerId: string): Promise<void> {
    const local = new LocalJob(job.id, job.deadline_at ?? Infinity, join(this.exitsDir, `${job.id}.json`), this.limits.jobOutputTailChars, command, { hermesHome: this.runtime.config.hermesHome, cwd: job.workdir });
    this.local.set(job.id, local);
    if (!(await launchJob(this.site, job, command, ownerId, local, (p) => this.onLocalExit(local, p)))) this.local.delete(job.id);
    this.changes.notify(job.id);
  }

  private flush(local: LocalJob): void {
    if (!local.takeDirty()) return;
    recordOutput(this.db, local.id, local.receiptOutput(), this.now());
  }

  private onLocalExit(local: LocalJob, proc: TrackedProcess): void {
    const completion = local.completion(proc);
    finishJob(this.db, local.id, completion, this.now());
    rmSync(local.exitFile, { force: true });
    local.cgroup?.remove();
    this.local.delete(local.id);
    this.log.info({ event: 'job_finished', job: local.id, state: completion.state, reason: completion.reason }, 'job finished');
    local.settle();
    this.changes.notify(local.id);
  }

  /** TERM now; the maintenance loop KILLs the whole tree once the grace period is over. */
  private stop(local: LocalJob, reason: StopReason): void {
    if (local.stopping) return;
    local.stopping = { reason, killAt: this.now() + this.limits.jobKillGraceSeconds * 1000 };
    if (local.proc) this.processes.terminate(local.proc);
  }

  private escalate(local: LocalJob): void {
    if (!local.stopping || local.stopping.killed || !local.proc) return;
    local.stopping.killed = true;
    void this.processes.kill(local.proc);
  }

  // ---- status and cancel -----------------------------------------------------------------------

  /** The job, after waiting up to `waitSeconds` for its state to change. */
  async status(id: string, token: string, waitSeconds: number, signal: AbortSignal): Promise<JobRow> {
    let row = authorizedJob(this.db, id, token);
    const local = this.local.get(id);
    if (local) this.flush(local);
    const until = monotonicMs() + Math.min(waitSeconds, this.limits.jobStatusMaxWaitSeconds) * 1000;
    const initial = row.state;
    while (monotonicMs() < until && !signal.aborted && row.state === initial && !isFinal(row.state)) {
      // Woken at once by a change this process makes; polled for changes other processes make.
      await this.changes.nextOrDelay(id, Math.min(250, until - monotonicMs()), signal);
      row = getJob(this.db, id) ?? row;
    }
    const after = this.local.get(id);
    if (after) {
      this.flush(after);
      row = getJob(this.db, id) ?? row;
    }
    return row;
  }

  /**
   * The running process of a job, for its credential holder (job_input): a wrong id or token is
   * the same JOB_NOT_FOUND job_status gives. Ownership does not matter here: the credential is the
   * authority, so a prompt can still be answered after the starting session closed or expired.
   */
  runningProcess(id: string, token: string): TrackedProcess {
    const row = authorizedJob(this.db, id, token);
    const proc = this.local.get(id)?.proc;
    if (!proc || proc.exited) {
      const elsewhere = !isFinal(row.state) && row.instance_id !== null && row.instance_id !== this.instance.id;
      const where = elsewhere ? ' on this gateway process (another one runs it)' : '';
      throw new GatewayError(ErrorCode.PROCESS_NOT_RUNNING, `job ${id} is ${row.state}: it has no running process${where} to take input`);
    }
    return proc;
  }

  async cancel(id: string, token: string): Promise<JobRow> {
    return this.withLock(id, async () => {
      const row = authorizedJob(this.db, id, token);
      const now = this.now();
      if (row.state === 'prepared') {
        if (cancelPrepared(this.db, id, now)) return getJob(this.db, id)!;
        // Another gateway process admitted it meanwhile: cancel it as the active job it now is.
        return this.cancelActive(getJob(this.db, id)!);
      }
      return this.cancelActive(row);
    });
  }

  private async cancelActive(row: JobRow): Promise<JobRow> {
    const id = row.id;
    const now = this.now();
    if (isFinal(row.state)) return row;
    const local = this.local.get(id);
    if (local) {
      this.stop(local, 'cancelled');
      const graceMs = this.limits.jobKillGraceSeconds * 1000;
      await settledWithin(local.done, graceMs);
      if (this.local.has(id)) {
        this.escalate(local);
        await settledWithin(local.done, 5000);
      }
      return getJob(this.db, id)!;
    }
    if (row.state !== 'unknown' && row.instance_id && row.instance_pid && row.instance_start && processIsAlive(row.instance_pid, row.instance_start)) {
      return cancelThroughDatabase(this.db, row, this.limits.jobKillGraceSeconds, now);
    }
    if (row.state !== 'unknown') reconcileOrphanJob(this.db, row, { exitsDir: this.exitsDir, log: this.log, now: this.now() });
    const released = await cancelUnknown(this.db, id, this.now(), this.runtime.config.cgroupRoot);
    this.changes.notify(id);
    return released;
  }

  // ---- maintenance and reconciliation ----------------------------------------------------------

  /** One maintenance pass; a `full` one (every RECONCILE_EVERY_TICKS-th by default) also sweeps and reconciles. */
  tick(full = this.ticks++ % RECONCILE_EVERY_TICKS === 0): void {
    try {
      const now = this.now();
      const cancelRequested = cancelRequestsFor(this.db, this.instance);
      for (const local of this.local.values()) {
        this.flush(local);
        if (cancelRequested.has(local.id)) this.stop(local, 'cancelled');
        else if (now >= local.deadlineAt) this.stop(local, 'timed_out');
        if (local.stopping && now >= local.stopping.killAt) this.escalate(local);
      }
      if (this.admittedSinceCheckpoint) {
        // Admitted commands were deleted with secure_delete; the WAL still holds the old page
        // images until a checkpoint folds them in (best effort: a busy reader just means next time).
        this.admittedSinceCheckpoint = false;
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      }
      if (full) {
        sweepJobs(this.db, this.limits.jobReceiptRetentionSeconds * 1000, now);
        this.reconcileOrphans();
        enforceOrphanDeadlines(this.db, this.limits.jobKillGraceSeconds * 1000, now);
      }
    } catch (e) {
      this.log.error({ event: 'job_maintenance_failed', error: (e as Error).message }, 'job maintenance failed');
    }
  }

  /** Jobs of gateway processes that no longer exist: recover their outcome or call them unknown. */
  reconcileOrphans(): void {
    reconcileOrphanJobs(this.db, { instance: this.instance, exitsDir: this.exitsDir, log: this.log, now: this.now() });
  }

  /** Controlled shutdown: no new starts, every job this process runs is stopped (TERM, then KILL) and recorded. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    if (this.paused) this.signalPaused = false; // this process's pause ends with it
    const running = [...this.local.values()];
    for (const local of running) this.stop(local, 'gateway_shutdown');
    // TERM grace, then KILL, all inside the supervisor's own shutdown budget (bin/gateway.ts exits hard
    // after shutdownGraceSeconds).
    const grace = Math.max(1, Math.min(this.limits.jobKillGraceSeconds, this.limits.shutdownGraceSeconds - 4)) * 1000;
    await settledWithin(Promise.all(running.map((l) => l.done)), grace);
    for (const local of this.local.values()) this.escalate(local);
    await settledWithin(Promise.all(running.map((l) => l.done)), 2500);
  }
}
