import { rm, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { resolveInsideRoots } from '../../platform/roots.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { ReadinessComponent } from '../../platform/health/readiness.js';
import { hermesNowIso, resolveHermesTimezone } from './cron/clock.js';
import { formatJob, normalizeJobRecord, pySlice, repeatDisplay, scanCronPrompt, truthy } from './cron/format.js';
import { availableLockHolder, withJobsLock, type LockHolder } from './cron/lock.js';
import { computeNextRun, parseSchedule, type ParseContext } from './cron/schedule.js';
import { atomicReplace, cronPaths, ensureCronDirs, loadJobs, serializeJobs, type JobRecord } from './cron/store.js';
import { applyUpdate, assertGatewayCanUpdate, contextFromArg, defaultModelSnapshot, invalidArgs, isRunnable, newJobId, normalizeDeliver, resolveJob, SAFE_JOB_ID, skillsArg } from './cron/records.js';

// cronjob — Hermes' cron job manager (tools/cronjob_tools.py over cron/jobs.py) as a gateway-owned
// guarded adapter. It reads and writes Hermes' own `$HERMES_HOME/cron/jobs.json`:
//   - `list` is read-only and always available (no lock, like Hermes; replaces are atomic);
//   - `create`, `update`, `pause`, `resume`, `remove`, `run` are mutations: refused unless the
//     host enables them (HERMES_MCP_CRONJOB_MUTATIONS, default off) and the call carries
//     `confirm: true`; then everything is validated before Hermes' `cron/.jobs.lock` is taken,
//     and the file is re-read, changed and atomically replaced under that lock, so a running
//     Hermes scheduler and the gateway never lose each other's writes;
//   - records are Hermes' create_job records (same field names and order), results are Hermes'
//     tool results with its `_format_job` shape;
//   - `run` (aliases `run_now`, `trigger`, as in Hermes' tools/cronjob_tools.py) follows Hermes'
//     cronjob tool `run`, not its older REST `trigger_job`: Hermes claims the job with
//     claim_job_for_fire, which refuses a paused/disabled job ("Job is paused/disabled; resume it
//     before running") and leaves it paused, reporting `executed: false` with `execution_skipped`
//     (cron/jobs.py: run results carry executed/execution_success/execution_skipped). So here a
//     paused or disabled job is left exactly as it is (nothing is written) and the same skipped
//     result is returned; a runnable job only gets next_run_at = now, so the Hermes scheduler fires
//     it on its next tick (within about 60 s). Its pause state is never changed. The gateway never
//     executes a job itself.
// Not exposed (sending them is INVALID_ARGUMENTS): model/provider/base_url overrides, script,
// no_agent, monitor and toolset fields, attach_to_session. Delivery defaults to `local`.

const CRONJOB_MUTATIONS_ENV = 'HERMES_MCP_CRONJOB_MUTATIONS';
const MUTATING_ACTIONS = ['create', 'update', 'pause', 'resume', 'remove', 'run'] as const;
type MutatingAction = (typeof MUTATING_ACTIONS)[number];
const ACTIONS = ['list', ...MUTATING_ACTIONS] as const;
type Action = (typeof ACTIONS)[number];
/** Hermes accepts these as aliases of `run` (tools/cronjob_tools.py). */
const ACTION_ALIASES: Readonly<Record<string, Action>> = { run_now: 'run', trigger: 'run' };
const SCHEMA_ACTIONS = [...ACTIONS, ...Object.keys(ACTION_ALIASES)];
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

const PROMPT_MAX_CHARS = 20_000;
const LOCK_TIMEOUT_MS = 10_000;

interface CronjobPermissions {
  allowed: ReadonlySet<MutatingAction>;
  /** The setting as the host wrote it, for messages. */
  setting: string;
  /** Set when the setting could not be read (then nothing is allowed). */
  error?: string;
}

/**
 * HERMES_MCP_CRONJOB_MUTATIONS: `off` (default; also unset, empty, false, 0, no, none), `on`
 * (also true, 1, yes, all), or a comma-separated list of the mutating actions to allow, e.g.
 * `pause,resume,run`. Anything else fails closed.
 */
export function parseCronjobMutations(value: string | undefined): CronjobPermissions {
  const setting = (value ?? '').trim();
  const lower = setting.toLowerCase();
  if (['', 'off', 'false', '0', 'no', 'none'].includes(lower)) return { allowed: new Set(), setting: setting || 'off' };
  if (['on', 'true', '1', 'yes', 'all'].includes(lower)) return { allowed: new Set(MUTATING_ACTIONS), setting };
  const tokens = lower.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = tokens.filter((t) => !(MUTATING_ACTIONS as readonly string[]).includes(t));
  if (unknown.length > 0 || tokens.length === 0) {
    return {
      allowed: new Set(),
      setting,
      error: `${CRONJOB_MUTATIONS_ENV}=${JSON.stringify(setting)} is not off, on or a list of ${MUTATING_ACTIONS.join('/')}; mutations stay disabled`,
    };
  }
  return { allowed: new Set(tokens as MutatingAction[]), setting };
}

export interface CronjobOptions {
  lockTimeoutMs?: number;
  lockHolder?: LockHolder;
}

// Which arguments each action takes; anything else for that action is refused, never ignored.
const APPLIES: Record<Action, readonly string[]> = {
  list: ['include_disabled'],
  create: ['prompt', 'schedule', 'name', 'repeat', 'deliver', 'skills', 'context_from', 'workdir'],
  update: ['job_id', 'prompt', 'schedule', 'name', 'repeat', 'deliver', 'skills', 'context_from', 'workdir'],
  pause: ['job_id', 'reason'],
  resume: ['job_id'],
  remove: ['job_id'],
  run: ['job_id'],
};

export function cronjobTools(config: GatewayConfig, log: Logger, options: CronjobOptions = {}): ToolDefinition[] {
  const permissions = parseCronjobMutations(config.cronjobMutations);
  if (permissions.error) log.warn({ event: 'cronjob_permissions_invalid', reason: permissions.error }, 'cronjob mutations disabled');
  const paths = cronPaths(config.hermesHome);
  const lockOptions = { timeoutMs: options.lockTimeoutMs ?? LOCK_TIMEOUT_MS, ...(options.lockHolder ? { holder: options.lockHolder } : {}), python: config.python, searchPath: config.helperSearchPath };
  const enabledList = MUTATING_ACTIONS.filter((a) => permissions.allowed.has(a));
  const hostState =
    enabledList.length === MUTATING_ACTIONS.length
      ? `enabled on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting})`
      : enabledList.length > 0
        ? `enabled on this host only for ${enabledList.join(', ')} (${CRONJOB_MUTATIONS_ENV}=${permissions.setting})`
        : `DISABLED on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting}); only list works`;

  const clockNow = (): ParseContext => ({ tz: resolveHermesTimezone(config.hermesHome, config.hermesTimezone), now: Date.now() });

  async function list(args: Record<string, unknown>) {
    const includeDisabled = args.include_disabled !== false;
    const jobs = (await loadJobs(paths.jobsFile)).map(normalizeJobRecord).filter((j) => includeDisabled || ('enabled' in j ? truthy(j.enabled) : true));
    const formatted = jobs.map(formatJob);
    return { success: true, count: formatted.length, jobs: formatted };
  }

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

  const str = (max: number, description: string, min = 1) => ({ type: 'string', minLength: min, maxLength: max, description });

  const cronjob: ToolDefinition = {
    name: 'cronjob',
    description: [
      "Manage Hermes' scheduled cron jobs (its own cron/jobs.json, shared with the Hermes scheduler under Hermes' lock).",
      "action='list' is read-only (include_disabled defaults to true). action='create', 'update', 'pause', 'resume', 'remove' or 'run' change jobs: each needs \"confirm\": true, after the user agreed, and the host must allow it",
      `(${CRONJOB_MUTATIONS_ENV}=off|on|<comma list of actions>, default off). Mutations are currently ${hostState}.`,
      'Always list first and use the job_id it shows (a unique job name also works); never guess IDs.',
      "create: prompt (self-contained: jobs run in a fresh session with no chat context) and/or skills, plus schedule: '30m' / '2h' / '1d' (one-shot after that delay), 'every 30m' / 'every 2h' (recurring), a cron expression '0 9 * * *' (Hermes timezone), or an ISO timestamp '2026-06-01T09:00:00' (one-shot).",
      'repeat: run count (omit: once for one-shots, forever for recurring; 0 = forever). deliver defaults to local (output saved in Hermes, not sent); or origin, all, platform, platform:chat_id[:thread_id], comma-combined.',
      "update: any of prompt, schedule, name, repeat, deliver, skills ([] clears), context_from, workdir ('' clears). pause takes an optional reason. run (aliases run_now, trigger) queues the job for the Hermes scheduler's next tick (about a minute); the gateway never executes a job. Like Hermes, run never un-pauses: a paused or disabled job is left as it is and reported with executed=false and execution_skipped — resume it first.",
      'Not available here: model/provider/base_url overrides, script, no_agent, monitor and toolset fields; sending them is an error.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: SCHEMA_ACTIONS, description: "list (read-only), or one of the mutations create, update, pause, resume, remove, run ('run_now' and 'trigger' are Hermes' aliases of run)." },
        job_id: str(200, 'The job_id from list (or a unique job name). Required for update, pause, resume, remove, run.'),
        prompt: str(PROMPT_MAX_CHARS, 'create/update: the full self-contained prompt the job runs.'),
        schedule: str(200, "create/update: '30m', 'every 2h', '0 9 * * *' or an ISO timestamp."),
        name: str(200, 'Optional human-friendly name.', 0),
        repeat: { type: 'integer', minimum: 0, maximum: 1_000_000, description: 'How many times to run; 0 = forever. Omit for the default.' },
        deliver: str(512, "Where output goes; default 'local'."),
        skills: { type: 'array', maxItems: 32, items: str(128, 'A skill name.'), description: 'Ordered skills loaded before the prompt; [] on update clears them.' },
        context_from: { type: 'array', maxItems: 16, items: str(64, 'A job_id.'), description: 'Job IDs whose latest output is injected as context; [] on update clears.' },
        workdir: str(4096, "Absolute directory inside the allowed roots to run the job from; '' on update clears.", 0),
        reason: str(500, 'pause: why the job is paused.', 0),
        include_disabled: { type: 'boolean', description: 'list: include paused/disabled jobs (default true).' },
        confirm: { type: 'boolean', description: 'Must be true for every mutation, after the user agreed to it.' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: false, title: 'Hermes cron jobs' },
    async handler(args, ctx) {
      try {
        const action = ACTION_ALIASES[args.action as string] ?? (args.action as Action);
        const stray = Object.keys(args).filter((k) => k !== 'action' && k !== 'confirm' && !APPLIES[action].includes(k));
        if (stray.length > 0) {
          throw invalidArgs(`cronjob: ${stray.map((s) => `'${s}'`).join(', ')} ${stray.length === 1 ? 'does' : 'do'} not apply to action '${action}' (it takes: ${APPLIES[action].join(', ') || 'nothing else'}); nothing was written.`);
        }
        if (action === 'list') return { structured: await list(args) };
        return { structured: await mutate(action, args, ctx.signal) };
      } catch (e) {
        // Hermes answers every cronjob failure as tool_error(..., success=False): the flag travels with the code.
        if (e instanceof GatewayError) throw new GatewayError(e.code, e.message, { success: false, ...e.details });
        throw e;
      }
    },
  };
  return [cronjob];
}

/**
 * A /readyz component for the cronjob capability (for the guarded adapter to register): ready when
 * the read-only list works on Hermes' jobs.json (a missing file is an empty list) and a lock holder
 * exists for mutations. Reports the host's mutation setting; never writes.
 */
export function cronjobReadiness(config: GatewayConfig): ReadinessComponent {
  return {
    name: 'cronjob',
    async probe() {
      const permissions = parseCronjobMutations(config.cronjobMutations);
      const mutations = MUTATING_ACTIONS.filter((a) => permissions.allowed.has(a));
      const holder = availableLockHolder(config.helperSearchPath, config.python);
      try {
        const jobs = await loadJobs(cronPaths(config.hermesHome).jobsFile);
        if (mutations.length > 0 && !holder) {
          return {
            ready: false,
            status: 'error',
            reason: 'neither flock(1) nor python3 is available to take cron/.jobs.lock',
            action: `install util-linux (flock) or python3, or turn cron mutations off (${CRONJOB_MUTATIONS_ENV}=off)`,
            details: { mutations },
          };
        }
        return { ready: true, status: 'ok', details: { jobs: jobs.length, mutations, lock_holder: holder ?? null } };
      } catch (e) {
        return { ready: false, status: 'error', reason: (e as Error).message, action: `repair or restore Hermes' ${cronPaths(config.hermesHome).jobsFile}`, details: { mutations } };
      }
    },
  };
}
