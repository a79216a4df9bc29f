import type { Logger } from 'pino';
import { GatewayError } from '../../../shared/errors.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { ReadinessComponent } from '../../platform/health/readiness.js';
import { formatJob, normalizeJobRecord, truthy } from './cron/format.js';
import { availableLockHolder } from './cron/lock.js';
import { cronjobMutator, type CronjobOptions } from './cron/mutations.js';
import { CRONJOB_MUTATIONS_ENV, enabledActions, MUTATING_ACTIONS, parseCronjobMutations } from './cron/permissions.js';
import { cronPaths, loadJobs } from './cron/store.js';
import { invalidArgs } from './cron/records.js';

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
//
// The mutations are in cron/mutations.ts, the host's permissions in cron/permissions.ts.

export { parseCronjobMutations } from './cron/permissions.js';
export type { CronjobOptions } from './cron/mutations.js';

const ACTIONS = ['list', ...MUTATING_ACTIONS] as const;
type Action = (typeof ACTIONS)[number];
/** Hermes accepts these as aliases of `run` (tools/cronjob_tools.py). */
const ACTION_ALIASES: Readonly<Record<string, Action>> = { run_now: 'run', trigger: 'run' };
const SCHEMA_ACTIONS = [...ACTIONS, ...Object.keys(ACTION_ALIASES)];
const PROMPT_MAX_CHARS = 20_000;

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
  const mutate = cronjobMutator(config, log, permissions, options);
  const enabledList = enabledActions(permissions);
  const hostState =
    enabledList.length === MUTATING_ACTIONS.length
      ? `enabled on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting})`
      : enabledList.length > 0
        ? `enabled on this host only for ${enabledList.join(', ')} (${CRONJOB_MUTATIONS_ENV}=${permissions.setting})`
        : `DISABLED on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting}); only list works`;

  async function list(args: Record<string, unknown>) {
    const includeDisabled = args.include_disabled !== false;
    const jobs = (await loadJobs(paths.jobsFile)).map(normalizeJobRecord).filter((j) => includeDisabled || ('enabled' in j ? truthy(j.enabled) : true));
    const formatted = jobs.map(formatJob);
    return { success: true, count: formatted.length, jobs: formatted };
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
      const mutations = enabledActions(permissions);
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
