import type { ToolDefinition } from '../../../core/tool-types.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import { CRONJOB_MUTATIONS_ENV, MUTATING_ACTIONS } from './permissions.js';

// What the cronjob tool says of itself for the detected Hermes: its actions and the arguments each
// takes, its description and its input schema (Hermes' tools/cronjob_tools.py, minus what the
// gateway does not expose).

export const ACTIONS = ['list', ...MUTATING_ACTIONS] as const;
export type Action = (typeof ACTIONS)[number];
/** Hermes accepts these as aliases of `run` (tools/cronjob_tools.py). */
export const ACTION_ALIASES: Readonly<Record<string, Action>> = { run_now: 'run', trigger: 'run' };
const SCHEMA_ACTIONS = [...ACTIONS, ...Object.keys(ACTION_ALIASES)];
const PROMPT_MAX_CHARS = 20_000;

/** Which arguments each action takes for the detected Hermes; anything else for that action is refused, never ignored. */
export function appliesFor(release: HermesRelease): Record<Action, readonly string[]> {
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

const str = (max: number, description: string, min = 1) => ({ type: 'string', minLength: min, maxLength: max, description });
const deliverForms = "'local' (the default: output saved in Hermes, not sent), 'origin', 'all', 'platform' or 'platform:chat_id[:thread_id]', comma-combined";

/** The tool's description for `release`; `hostState` says which mutations this host allows. */
export function cronjobDescription(release: HermesRelease, hostState: string): string {
  const later = release.has('cron_tool_arguments');
  const pinned = release.has('cron_pinned');
  return [
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
  ].join(' ');
}

/** The tool's input schema for `release`. */
export function cronjobInputSchema(release: HermesRelease): ToolDefinition['inputSchema'] {
  const later = release.has('cron_tool_arguments');
  const pinned = release.has('cron_pinned');
  return {
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
  };
}
