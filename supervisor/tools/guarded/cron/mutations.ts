import { rm, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { resolveInsideRoots } from '../../../platform/roots.js';
import type { GatewayConfig } from '../../../platform/config.js';
import { hermesNowIso, resolveHermesTimezone } from './clock.js';
import { formatJob, normalizeJobRecord, pySlice, repeatDisplay, scanCronPrompt, truthy } from './format.js';
import { withJobsLock, type LockHolder } from './lock.js';
import { CRONJOB_MUTATIONS_ENV, enabledActions, type CronjobPermissions, type MutatingAction } from './permissions.js';
import { computeNextRun, parseSchedule, type ParseContext } from './schedule.js';
import { atomicReplace, cronPaths, ensureCronDirs, loadJobs, serializeJobs, type JobRecord } from './store.js';
import { applyUpdate, assertGatewayCanUpdate, contextFromArg, defaultModelSnapshot, invalidArgs, isRunnable, newJobId, normalizeDeliver, resolveJob, SAFE_JOB_ID, skillsArg } from './records.js';

// cronjob's mutations (create, update, pause, resume, remove, run; cronjob.ts describes the tool):
// refused unless the host allows the action and the call carries `confirm: true`; then every
// argument is checked before Hermes' `cron/.jobs.lock` is taken, and jobs.json is re-read,
// changed and atomically replaced under that lock.

/** Hermes' message when its run claim finds the job paused or disabled (cron/jobs.py is_job_runnable). */
const RUN_PAUSED_SKIP = 'Job is paused/disabled; resume it before running.';

/** Hermes' create-time notice for a job that will deliver nowhere (tools/cronjob_tools.py _local_delivery_notice). */
const LOCAL_DELIVERY_NOTICE =
  "This is a local-only cron job: its output is saved (view it with cronjob(action='list')) but will NOT be delivered back into this session — " +
  'CLI/TUI sessions have no live-delivery channel. To be notified when it runs, recreate or update the job with deliver set to a ' +
  "gateway-connected platform, e.g. deliver='telegram' or deliver='all'.";

/**
 * Whether Hermes' _local_delivery_notice speaks for a new job: not when the caller asked for
 * `local` itself, and not when the job resolves to a delivery target. A gateway-created job has no
 * origin, so its targets are its explicit `platform:chat_id` parts; whether a bare platform, `all`
 * or `origin` finds a home channel depends on the Hermes gateway's environment, which this process
 * cannot see, so those get no notice.
 */
function localDeliveryNotice(deliver: string, requested: unknown): boolean {
  if (typeof requested === 'string' && requested.trim().toLowerCase() === 'local') return false;
  return deliver.split(',').every((part) => part.trim() === '' || part.trim() === 'local');
}

const LOCK_TIMEOUT_MS = 10_000;

export interface CronjobOptions {
  lockTimeoutMs?: number;
  lockHolder?: LockHolder;
}

export type CronjobMutator = (action: MutatingAction, args: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;

/** The mutation half of the cronjob tool, for this host's configuration and permissions. */
export function cronjobMutator(config: GatewayConfig, log: Logger, permissions: CronjobPermissions, options: CronjobOptions = {}): CronjobMutator {
  const paths = cronPaths(config.hermesHome);
  const lockOptions = { timeoutMs: options.lockTimeoutMs ?? LOCK_TIMEOUT_MS, ...(options.lockHolder ? { holder: options.lockHolder } : {}), python: config.python, searchPath: config.helperSearchPath };
  const enabledList = enabledActions(permissions);
  const clockNow = (): ParseContext => ({ tz: resolveHermesTimezone(config.hermesHome, config.hermesTimezone), now: Date.now() });

  async function workdirArg(value: unknown): Promise<string | null | undefined> {
    if (value === undefined) return undefined;
    const raw = String(value).trim();
    if (!raw) return null;
    if (!isAbsolute(raw)) throw invalidArgs(`cronjob: workdir must be an absolute path inside the allowed roots (got ${JSON.stringify(raw)})`);
    const real = await resolveInsideRoots(raw, config.roots);
    if (!(await stat(real)).isDirectory()) throw invalidArgs(`cronjob: workdir is not a directory: ${raw}`);
    return real;
  }

  function checkPrompt(prompt: string | undefined): void {
    if (prompt === undefined) return;
    const blocked = scanCronPrompt(prompt);
    if (blocked) throw new GatewayError(ErrorCode.CRONJOB_PROMPT_BLOCKED, blocked);
  }

  /** Runs one mutation under Hermes' lock: fresh load, change, atomic replace. */
  /** `change` returns `jobs: null` to write nothing (the decision was still made under the lock, on a fresh load). */
  async function commit<T>(signal: AbortSignal, change: (jobs: JobRecord[], clock: ParseContext) => { jobs: JobRecord[] | null; result: T; after?: () => Promise<void> }): Promise<T> {
    await ensureCronDirs(config.hermesHome);
    const { result, after } = await withJobsLock(
      paths.lockFile,
      lockOptions,
      async (held) => {
        const jobs = await loadJobs(paths.jobsFile);
        const clock = clockNow();
        const changed = change(jobs, clock);
        if (changed.jobs === null) return changed;
        held.assertHeld();
        await atomicReplace(paths.jobsFile, paths.cronDir, serializeJobs(changed.jobs as JobRecord[], hermesNowIso(clock.tz, clock.now)), () => held.assertHeld());
        return changed;
      },
      signal,
    );
    if (after) await after();
    return result;
  }

  async function mutate(action: MutatingAction, args: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (!permissions.allowed.has(action)) {
      throw new GatewayError(
        ErrorCode.CRONJOB_MUTATIONS_DISABLED,
        permissions.error ??
          `cronjob ${action} is disabled on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting}); available here: ${['list', ...enabledList].join(', ')}. The host operator enables mutations with ${CRONJOB_MUTATIONS_ENV}=on (or a list such as pause,resume). Nothing was written.`,
        { action },
      );
    }
    if (args.confirm !== true) {
      throw new GatewayError(
        ErrorCode.CONFIRMATION_REQUIRED,
        `cronjob ${action} changes Hermes' scheduled jobs: repeat the call with "confirm": true once the user has agreed to it. Nothing was written.`,
        { action },
      );
    }
    const jobRef = typeof args.job_id === 'string' ? args.job_id.trim() : '';
    if (action !== 'create' && !jobRef) throw invalidArgs(`job_id is required for action '${action}'`);

    // Everything the caller sent is checked before the lock is taken.
    const prompt = args.prompt as string | undefined;
    checkPrompt(prompt);
    const initialClock = clockNow();
    const schedule = typeof args.schedule === 'string' ? parseSchedule(args.schedule, initialClock) : undefined;
    const deliver = normalizeDeliver(args.deliver);
    const skills = skillsArg(args.skills);
    const contextFrom = contextFromArg(args.context_from);
    const workdir = await workdirArg(args.workdir);
    const repeat = args.repeat as number | undefined;
    const assertContextRefs = (jobs: JobRecord[]) => {
      for (const ref of contextFrom ?? []) {
        if (!jobs.some((j) => j.id === ref)) {
          throw new GatewayError(ErrorCode.CRONJOB_NOT_FOUND, `context_from job '${ref}' not found. Use cronjob(action='list') to see available jobs.`);
        }
      }
    };

    if (action === 'create') {
      if (!schedule) throw invalidArgs('schedule is required for create');
      if (!prompt && !(skills && skills.length > 0)) throw invalidArgs('create requires either prompt or at least one skill');
      const modelSnapshot = defaultModelSnapshot(config.hermesHome);
      const result = await commit(signal, (jobs, clock) => {
        assertContextRefs(jobs);
        const promptText = prompt ?? '';
        const skillList = skills ?? [];
        let times: number | null = repeat === undefined || repeat <= 0 ? null : repeat;
        if (schedule.kind === 'once' && times === null) times = 1;
        const label = promptText || skillList[0] || 'cron job';
        const job: JobRecord = {
          id: newJobId(jobs),
          name: args.name ? (args.name as string) : pySlice(label, 50).trim(),
          prompt: promptText,
          skills: skillList,
          skill: skillList[0] ?? null,
          model: null,
          provider: null,
          provider_snapshot: null,
          model_snapshot: modelSnapshot,
          base_url: null,
          script: null,
          no_agent: false,
          context_from: contextFrom && contextFrom.length > 0 ? contextFrom : null,
          schedule,
          schedule_display: schedule.display,
          repeat: { times, completed: 0 },
          enabled: true,
          state: 'scheduled',
          paused_at: null,
          paused_reason: null,
          created_at: hermesNowIso(clock.tz, clock.now),
          next_run_at: computeNextRun(schedule, clock),
          last_run_at: null,
          last_status: null,
          last_error: null,
          last_delivery_error: null,
          deliver: deliver ?? 'local',
          origin: null,
          enabled_toolsets: null,
          workdir: workdir ?? null,
        };
        const localNote = localDeliveryNotice(job.deliver as string, args.deliver) ? ` ${LOCAL_DELIVERY_NOTICE}` : '';
        return {
          jobs: [...jobs, job],
          result: {
            success: true,
            job_id: job.id,
            name: job.name,
            skill: job.skill,
            skills: job.skills,
            schedule: job.schedule_display,
            repeat: repeatDisplay(job),
            deliver: job.deliver,
            next_run_at: job.next_run_at,
            job: formatJob(job),
            message: `Cron job '${job.name as string}' created.${localNote}`,
          },
        };
      });
      log.info({ event: 'cronjob_mutation', action, job_id: result.job_id }, 'cronjob created');
      return result;
    }

    const resolveIn = (jobs: JobRecord[]) => resolveJob(jobs, jobRef);
    const replaceAt = (jobs: JobRecord[], index: number, job: JobRecord) => jobs.map((j, i) => (i === index ? job : j));

    if (action === 'remove') {
      let removedId = '';
      const result = await commit(signal, (jobs) => {
        const { job, normalized } = resolveIn(jobs);
        removedId = normalized.id as string;
        if (!SAFE_JOB_ID.test(removedId) || removedId === '.' || removedId === '..') {
          throw new GatewayError(ErrorCode.CRONJOB_REQUIRES_HERMES, `Job id ${JSON.stringify(removedId)} is not a safe output directory name; remove it with Hermes itself. Nothing was written.`);
        }
        return {
          jobs: jobs.filter((j) => j !== job && j.id !== removedId),
          result: {
            success: true,
            message: `Cron job '${normalized.name as string}' removed.`,
            removed_job: { id: removedId, name: normalized.name, schedule: normalized.schedule_display },
          },
          // Hermes drops the removed job's saved outputs too (cron/output/<id>); a symlink is unlinked, never followed.
          after: () => rm(join(paths.outputDir, removedId), { recursive: true, force: true }).catch(() => undefined),
        };
      });
      log.info({ event: 'cronjob_mutation', action, job_id: removedId }, 'cronjob removed');
      return result;
    }

    let changedId = '';
    let skipped = false;
    const result = await commit<Record<string, unknown>>(signal, (jobs, clock) => {
      const { index, job, normalized } = resolveIn(jobs);
      changedId = normalized.id as string;
      const nowIso = hermesNowIso(clock.tz, clock.now);
      let updates: JobRecord;
      if (action === 'pause') {
        updates = { enabled: false, state: 'paused', paused_at: nowIso, paused_reason: typeof args.reason === 'string' && args.reason ? args.reason : null };
      } else if (action === 'resume') {
        updates = { enabled: true, state: 'scheduled', paused_at: null, paused_reason: null, next_run_at: computeNextRun(normalized.schedule, clock) };
      } else if (action === 'run') {
        // Hermes' cronjob `run` claims the job (cron/jobs.py claim_job_for_fire), and that claim
        // refuses a paused/disabled job: the job stays paused and the result says it was skipped
        // (cron/jobs.py run results; Hermes' older REST trigger_job re-enabled the job
        // instead, which the tool no longer does). So: never touch the pause state; a paused job is
        // not written at all.
        if (!isRunnable(normalized)) {
          skipped = true;
          return {
            jobs: null,
            result: { success: true, job: { ...formatJob(normalized), executed: false, execution_success: false, execution_skipped: RUN_PAUSED_SKIP } },
          };
        }
        // Runnable: due now, so the scheduler's next tick fires it.
        updates = { next_run_at: nowIso };
      } else {
        assertGatewayCanUpdate(job);
        assertContextRefs(jobs);
        updates = {};
        if (prompt !== undefined) updates.prompt = prompt;
        if (args.name !== undefined) updates.name = args.name;
        if (args.deliver !== undefined) updates.deliver = deliver;
        if (skills !== undefined) {
          updates.skills = skills;
          updates.skill = skills[0] ?? null;
        }
        if (contextFrom !== undefined) updates.context_from = contextFrom.length > 0 ? contextFrom : null;
        if (workdir !== undefined) updates.workdir = workdir;
        if (repeat !== undefined) {
          const state = truthy(normalized.repeat) && typeof normalized.repeat === 'object' ? { ...(normalized.repeat as JobRecord) } : {};
          state.times = repeat <= 0 ? null : repeat;
          updates.repeat = state;
        }
        if (schedule) {
          updates.schedule = schedule;
          updates.schedule_display = schedule.display;
          if (normalized.state !== 'paused') {
            updates.state = 'scheduled';
            updates.enabled = true;
          }
        }
        if (Object.keys(updates).length === 0) throw invalidArgs('No updates provided.');
      }
      const updated = applyUpdate(job, updates, clock);
      const formatted = formatJob(normalizeJobRecord(updated));
      const answer: Record<string, unknown> =
        action === 'run'
          ? {
              success: true,
              job: {
                ...formatted,
                executed: false,
                execution_success: false,
                execution_skipped: 'Queued: next_run_at is now, so the Hermes scheduler runs it on its next tick (about a minute). The gateway never executes jobs itself.',
              },
            }
          : { success: true, job: formatted };
      return { jobs: replaceAt(jobs, index, updated), result: answer };
    });
    if (skipped) log.info({ event: 'cronjob_run_skipped', action, job_id: changedId, reason: 'paused_or_disabled' }, 'cronjob run skipped: job is paused/disabled; nothing written');
    else log.info({ event: 'cronjob_mutation', action, job_id: changedId }, `cronjob ${action}`);
    return result;
  }

  return mutate;
}
