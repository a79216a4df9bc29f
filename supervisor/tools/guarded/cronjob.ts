import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { ReadinessComponent } from '../../platform/health/readiness.js';
import type { HermesCaller } from '../../platform/hermes/call.js';
import type { HermesRelease } from '../../platform/hermes/release.js';
import { formatJob, normalizeJobRecord, truthy } from './cron/format.js';
import { cronjobMutator } from './cron/mutations.js';
import { CRONJOB_MUTATIONS_ENV, enabledActions, MUTATING_ACTIONS, parseCronjobMutations } from './cron/permissions.js';
import { invalidArgs } from './cron/records.js';
import { Slots } from './cron/slots.js';
import { cronPaths, loadJobs } from './cron/store.js';
import { withHermesArgumentRepair } from '../../core/hermes-args.js';

// cronjob — Hermes' cron job manager (its `cronjob` tool, `cronjob_manage` in later Hermes, over
// cron/jobs.py) as a gateway-owned guarded adapter, following the Hermes the gateway fronts:
//   - `list` is read-only and always available: the gateway reads `$HERMES_HOME/cron/jobs.json`
//     itself (no lock, like Hermes; Hermes replaces the file atomically) and shows each job as the
//     detected Hermes' `_format_job` does; where that Hermes' list says whether its scheduler runs
//     (gateway_running), Hermes' own probe answers it;
//   - `create`, `update`, `pause`, `resume`, `remove`, `run` are mutations: refused unless the
//     host enables them (HERMES_MCP_CRONJOB_MUTATIONS, default off) and the call carries
//     `confirm: true`; then, once the gateway's own checks pass, the detected Hermes makes the
//     change with its own code under its own lock (cron/mutations.ts): its record fields, schedule
//     grammar and refusals, whatever its version;
//   - `run` (aliases `run_now`, `trigger`, as in Hermes) never executes a job and never un-pauses
//     one: a paused or disabled job is left as it is (Hermes' run claim refuses it: `executed:
//     false` with `execution_skipped`), a runnable one gets Hermes' `trigger_job` (next_run_at now,
//     marked as a manual run where Hermes has the mark), so Hermes' scheduler fires it on its next
//     tick (within about 60 s).
// Not exposed (sending them is INVALID_ARGUMENTS): model/provider/base_url overrides, script,
// no_agent, monitor and toolset fields, attach_to_session. Delivery defaults to `local`.
// Where the detected Hermes' tool takes more (pinned, paused, failure_deliver, continuity, a run
// prompt), so does this one.

export { parseCronjobMutations } from './cron/permissions.js';

const ACTIONS = ['list', ...MUTATING_ACTIONS] as const;
type Action = (typeof ACTIONS)[number];
/** Hermes accepts these as aliases of `run` (tools/cronjob_tools.py). */
const ACTION_ALIASES: Readonly<Record<string, Action>> = { run_now: 'run', trigger: 'run' };
const SCHEMA_ACTIONS = [...ACTIONS, ...Object.keys(ACTION_ALIASES)];
const PROMPT_MAX_CHARS = 20_000;

/** Which arguments each action takes for the detected Hermes; anything else for that action is refused, never ignored. */
function appliesFor(release: HermesRelease): Record<Action, readonly string[]> {
  const pinned = release.has('cron_pinned') ? ['pinned'] : [];
  const later = release.has('cron_tool_arguments');
  const both = ['prompt', 'schedule', 'name', 'repeat', 'deliver', 'skills', 'context_from', 'workdir', ...(later ? ['failure_deliver', 'continuity'] : []), ...pinned];
  return {
    list: ['include_disabled'],
    create: [...both, ...(later ? ['paused', 'paused_reason'] : [])],
    update: ['job_id', ...both],
    pause: ['job_id', 'reason'],
    resume: ['job_id'],
    remove: ['job_id'],
    run: ['job_id', ...(later ? ['prompt'] : [])],
  };
}

/** The schedule forms the detected Hermes reads (cron/jobs.py parse_schedule). */
function scheduleForms(release: HermesRelease): string {
  return release.has('cron_schedule_recurring_durations')
    ? "'30m' / 'every 2h' / 'every hour' (recurring interval), 'in 30m' / 'in 2h' (one-shot after that delay), 'every monday 9am' / 'weekdays at 9am' / 'every day at 9am' (recurring), a cron expression '0 9 * * *' (Hermes timezone), or an ISO timestamp '2026-06-01T09:00:00' (one-shot)"
    : "'30m' / '2h' / '1d' (one-shot after that delay), 'every 30m' / 'every 2h' (recurring), a cron expression '0 9 * * *' (Hermes timezone), or an ISO timestamp '2026-06-01T09:00:00' (one-shot)";
}

/**
 * The cronjob tool for the Hermes the gateway fronts: `release` is what it follows (its schema,
 * its list answer), `caller` runs that Hermes' own cron code (none: mutations answer
 * HERMES_AGENT_NOT_INSTALLED, list still works).
 */
export function cronjobTools(config: GatewayConfig, log: Logger, release: HermesRelease, caller: HermesCaller | undefined): ToolDefinition[] {
  const permissions = parseCronjobMutations(config.cronjobMutations);
  if (permissions.error) log.warn({ event: 'cronjob_permissions_invalid', reason: permissions.error }, 'cronjob mutations disabled');
  const paths = cronPaths(config.hermesHome);
  const slots = new Slots(config.limits.cronjobConcurrentCalls);
  const mutate = cronjobMutator(config, log, permissions, caller, slots);
  const applies = appliesFor(release);
  const later = release.has('cron_tool_arguments');
  const pinned = release.has('cron_pinned');
  const enabledList = enabledActions(permissions);
  const hostState =
    enabledList.length === MUTATING_ACTIONS.length
      ? `enabled on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting})`
      : enabledList.length > 0
        ? `enabled on this host only for ${enabledList.join(', ')} (${CRONJOB_MUTATIONS_ENV}=${permissions.setting})`
        : `DISABLED on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting}); only list works`;

  /**
   * Hermes' own answer to whether these jobs will fire (its list's gateway_running/warning); null,
   * Hermes' own "could not tell", when there is no Hermes to ask or it did not answer.
   */
  async function liveness(signal: AbortSignal): Promise<Record<string, unknown>> {
    if (!caller?.available) return { gateway_running: null };
    try {
      const value = await slots.run(signal, () => caller.call('cron', 'liveness', {}, { timeoutMs: config.limits.cronjobCallTimeoutSeconds * 1000, signal }));
      return value && typeof value === 'object' ? (value as Record<string, unknown>) : { gateway_running: null };
    } catch (e) {
      if (e instanceof GatewayError && e.code === ErrorCode.CANCELLED) throw e;
      log.warn({ event: 'cronjob_liveness_failed', reason: (e as Error).message }, "cronjob list: Hermes' scheduler probe did not answer");
      return { gateway_running: null };
    }
  }

  async function list(args: Record<string, unknown>, signal: AbortSignal) {
    const includeDisabled = args.include_disabled !== false;
    const jobs = (await loadJobs(paths.jobsFile)).map((j) => normalizeJobRecord(j, release)).filter((j) => includeDisabled || ('enabled' in j ? truthy(j.enabled) : true));
    const formatted = jobs.map((j) => formatJob(j, release));
    const answer: Record<string, unknown> = { success: true, count: formatted.length, jobs: formatted };
    // Hermes adds its scheduler notice to a list that has jobs (tools/cronjob_tools.py _action_list).
    return release.has('cron_job_view_fields') && formatted.length > 0 ? { ...answer, ...(await liveness(signal)) } : answer;
  }

  const str = (max: number, description: string, min = 1) => ({ type: 'string', minLength: min, maxLength: max, description });
  const deliverForms = "'local' (the default: output saved in Hermes, not sent), 'origin', 'all', 'platform' or 'platform:chat_id[:thread_id]', comma-combined";

  const cronjob: ToolDefinition = {
    name: 'cronjob',
    description: [
      `Manage Hermes' scheduled cron jobs (its own cron/jobs.json, shared with the Hermes scheduler; changes are made by Hermes' own cron code under its lock, following ${release.describe()}).`,
      "action='list' is read-only (include_disabled defaults to true). action='create', 'update', 'pause', 'resume', 'remove' or 'run' change jobs: each needs \"confirm\": true, after the user agreed, and the host must allow it",
      `(${CRONJOB_MUTATIONS_ENV}=off|on|<comma list of actions>, default off). Mutations are currently ${hostState}.`,
      'Always list first and use the job_id it shows (a unique job name also works); never guess IDs.',
      `create: prompt (self-contained: jobs run in a fresh session with no chat context) and/or skills, plus schedule: ${scheduleForms(release)}.`,
      `repeat: run count (omit: once for one-shots, forever for recurring; 0 = forever). deliver: ${deliverForms}.`,
      ...(later ? ["failure_deliver: where failure notices go instead (same forms; 'local' keeps them quiet; '' on update clears). continuity=true: each run sees the job's own previous output. paused=true (create): the job is created paused (paused_reason says why); resume schedules it."] : []),
      ...(pinned ? ["pinned: set only when the user asks to pin (or unpin) a job's model: true locks the main agent's current model onto the job, false releases it so the job follows the main model again."] : []),
      `update: any of prompt, schedule, name, repeat, deliver, skills ([] clears), context_from, workdir ('' clears)${later ? ', failure_deliver, continuity' : ''}${pinned ? ', pinned' : ''}. pause takes an optional reason.`,
      `run (aliases run_now, trigger) queues the job for the Hermes scheduler's next tick (about a minute)${later ? ', with an optional prompt added for that one run' : ''}; the gateway never executes a job. Like Hermes, run never un-pauses: a paused or disabled job is left as it is and reported with executed=false and execution_skipped — resume it first.`,
      'Not available here: model/provider/base_url overrides, script, no_agent, monitor and toolset fields; sending them is an error.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: SCHEMA_ACTIONS, description: "list (read-only), or one of the mutations create, update, pause, resume, remove, run ('run_now' and 'trigger' are Hermes' aliases of run)." },
        job_id: str(200, 'The job_id from list (or a unique job name). Required for update, pause, resume, remove, run.'),
        prompt: str(PROMPT_MAX_CHARS, later ? 'create/update: the full self-contained prompt the job runs. run: extra context for that one run (never stored).' : 'create/update: the full self-contained prompt the job runs.'),
        schedule: str(200, `create/update: ${scheduleForms(release)}.`),
        name: str(200, 'Optional human-friendly name.', 0),
        repeat: { type: 'integer', minimum: 0, maximum: 1_000_000, description: 'How many times to run; 0 = forever. Omit for the default.' },
        deliver: str(512, `Where output goes: ${deliverForms}.`),
        ...(later ? { failure_deliver: str(512, "create/update: where failure notices go instead of deliver (same forms); '' on update clears.", 0) } : {}),
        skills: { type: 'array', maxItems: 32, items: str(128, 'A skill name.'), description: 'Ordered skills loaded before the prompt; [] on update clears them.' },
        context_from: { type: 'array', maxItems: 16, items: str(64, 'A job_id.'), description: 'Job IDs whose latest output is injected as context; [] on update clears.' },
        ...(later ? { continuity: { type: 'boolean', description: "create/update: true = each run sees the job's own previous output; false on update turns it off." } } : {}),
        workdir: str(4096, "Absolute directory inside the allowed roots to run the job from; '' on update clears.", 0),
        ...(later
          ? {
              paused: { type: 'boolean', description: 'create: create the job paused (resume schedules it). Default false.' },
              paused_reason: str(500, 'create: why it is created paused (needs paused=true).', 0),
            }
          : {}),
        ...(pinned ? { pinned: { type: 'boolean', description: "create/update: only when the user asks. true locks the main agent's current model onto the job; false releases it." } } : {}),
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
        const stray = Object.keys(args).filter((k) => k !== 'action' && k !== 'confirm' && !applies[action].includes(k));
        if (stray.length > 0) {
          throw invalidArgs(`cronjob: ${stray.map((s) => `'${s}'`).join(', ')} ${stray.length === 1 ? 'does' : 'do'} not apply to action '${action}' (it takes: ${applies[action].join(', ') || 'nothing else'}); nothing was written.`);
        }
        if (action === 'list') return { structured: await list(args, ctx.signal) };
        return { structured: await mutate(action, args, ctx.signal) };
      } catch (e) {
        // Hermes answers every cronjob failure as tool_error(..., success=False): the flag travels with the code.
        if (e instanceof GatewayError) throw new GatewayError(e.code, e.message, { success: false, ...e.details });
        throw e;
      }
    },
  };
  // Hermes' dispatch coercion ("true" for confirm, "3" for repeat) before the schema.
  return [withHermesArgumentRepair(cronjob)];
}

/**
 * A /readyz component for the cronjob capability (for the guarded adapter to register): ready when
 * the read-only list works on Hermes' jobs.json (a missing file is an empty list). Reports the
 * host's mutation setting, and says so when mutations are allowed but there is no Hermes to make
 * them (they then answer HERMES_AGENT_NOT_INSTALLED; the `hermes` component says where it looked).
 * Never writes.
 */
export function cronjobReadiness(config: GatewayConfig, caller: HermesCaller | undefined): ReadinessComponent {
  return {
    name: 'cronjob',
    async probe() {
      const permissions = parseCronjobMutations(config.cronjobMutations);
      const mutations = enabledActions(permissions);
      const hermes = caller?.available ?? false;
      try {
        const jobs = await loadJobs(cronPaths(config.hermesHome).jobsFile);
        if (mutations.length > 0 && !hermes) {
          return {
            ready: true,
            status: 'no_hermes',
            reason: `cron mutations are allowed (${CRONJOB_MUTATIONS_ENV}=${permissions.setting}) but no Hermes Agent was found to make them: they answer HERMES_AGENT_NOT_INSTALLED; list works`,
            action: 'install Hermes, or set HERMES_AGENT_PYTHON to its interpreter, then restart the gateway (the hermes component says where the gateway looked)',
            details: { jobs: jobs.length, mutations, hermes_calls: false },
          };
        }
        return { ready: true, status: 'ok', details: { jobs: jobs.length, mutations, hermes_calls: hermes } };
      } catch (e) {
        return { ready: false, status: 'error', reason: (e as Error).message, action: `repair or restore Hermes' ${cronPaths(config.hermesHome).jobsFile}`, details: { mutations } };
      }
    },
  };
}
