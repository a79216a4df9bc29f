import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { GatewayConfig } from '../../../platform/config.js';
import type { HermesCaller } from '../../../platform/hermes/call.js';
import { resolveInsideRoots } from '../../../platform/roots.js';
import { CRONJOB_MUTATIONS_ENV, enabledActions, type CronjobPermissions, type MutatingAction } from './permissions.js';
import { contextFromArg, invalidArgs, normalizeDeliver, skillsArg } from './records.js';
import { Slots } from './slots.js';

// cronjob's mutations (create, update, pause, resume, remove, run; index.ts describes the tool).
// The gateway's own checks come first, in this order, and nothing runs until they pass: the host
// allows the action (HERMES_MCP_CRONJOB_MUTATIONS), the call carries `confirm: true`, the
// arguments are ones the gateway exposes for this action (no model/provider/base_url overrides, no
// script, no_agent, monitor or toolset fields), a delivery target has the shape of one, skills
// are names, a workdir is a directory inside the allowed roots. Then the detected Hermes does the
// change with its own code, in a Hermes call worker (workers/hermes-call/cron.py): its tool function
// under its own lock, so the record has its fields, its schedule grammar and its refusals (the
// gateway-lifecycle guard among them), and jobs.json is written by Hermes' own atomic save. A call
// refused (by the gateway's checks or by Hermes) writes nothing. The worker commits (HermesCaller's
// handshake) once it holds Hermes' lock, right before Hermes loads and changes the jobs: a call
// cancelled, timed out or whose worker died before that (waiting for the lock, say) wrote nothing
// and says so. After it, the caller's cancellation no longer stops it (Hermes may be saving); a
// call that then outlives its budget or whose worker dies answers with `outcome: 'unknown'`: the
// change may have been made, and the caller is told to list before retrying (a retried create
// could make a duplicate job). Without a Hermes to call, a mutation is HERMES_AGENT_NOT_INSTALLED:
// a job nothing would ever run is not written either.

/** Hermes' message when its run claim finds the job paused or disabled (tools/cronjob_tools.py _execute_job_now). */
const RUN_PAUSED_SKIP = 'Job is paused/disabled; resume it before running.';
const RUN_QUEUED =
  'Queued: next_run_at is now, so the Hermes scheduler runs it on its next tick (about a minute). The gateway never executes jobs itself.';

/** How workers/hermes-call/cron.py classes a refusal (it asks the Hermes check that gives that message). */
const REFUSAL_CODES: Readonly<Record<string, ErrorCode>> = {
  ambiguous: ErrorCode.CRONJOB_AMBIGUOUS,
  not_found: ErrorCode.CRONJOB_NOT_FOUND,
  prompt_blocked: ErrorCode.CRONJOB_PROMPT_BLOCKED,
  schedule_invalid: ErrorCode.CRONJOB_SCHEDULE_INVALID,
  store_invalid: ErrorCode.CRONJOB_STORE_INVALID,
  os_error: ErrorCode.FILE_WRITE_FAILED,
  refused: ErrorCode.CRONJOB_REFUSED_BY_HERMES,
};

type HermesAnswer = Record<string, unknown>;
/** What workers/hermes-call/cron.py answers for a mutation. */
type CronCallValue =
  | { answer: HermesAnswer; refused?: string }
  | { queued: HermesAnswer }
  | { skipped: HermesAnswer }
  | { lock: string };

export type CronjobMutator = (action: MutatingAction, args: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;

/** A directory inside the allowed roots, resolved; null for '' (clears it); undefined when not sent. */
async function workdirArg(config: GatewayConfig, value: unknown): Promise<string | null | undefined> {
  if (value === undefined) return undefined;
  const raw = String(value).trim();
  if (!raw) return null;
  if (!isAbsolute(raw)) throw invalidArgs(`cronjob: workdir must be an absolute path inside the allowed roots (got ${JSON.stringify(raw)})`);
  const real = await resolveInsideRoots(raw, config.roots);
  if (!(await stat(real)).isDirectory()) throw invalidArgs(`cronjob: workdir is not a directory: ${raw}`);
  return real;
}

/** The arguments Hermes' cronjob() gets: the gateway's checked values, only those the caller sent. */
async function hermesArgs(config: GatewayConfig, action: MutatingAction, args: Record<string, unknown>, jobRef: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  if (action !== 'create') out.job_id = jobRef;
  for (const key of ['prompt', 'schedule', 'name', 'repeat', 'reason', 'pinned', 'paused', 'paused_reason', 'continuity'] as const) {
    if (args[key] !== undefined) out[key] = args[key];
  }
  for (const key of ['deliver', 'failure_deliver'] as const) {
    // Omitted: Hermes' default, which for a call with no chat origin (the gateway's) is `local`.
    // '' on update clears failure_deliver, as in Hermes.
    if (args[key] !== undefined) out[key] = normalizeDeliver(args[key], key) ?? '';
  }
  const skills = skillsArg(args.skills);
  if (skills !== undefined) out.skills = skills;
  const contextFrom = contextFromArg(args.context_from);
  if (contextFrom !== undefined) out.context_from = contextFrom;
  const workdir = await workdirArg(config, args.workdir);
  if (workdir !== undefined) out.workdir = workdir ?? '';
  if (action === 'create') {
    // Hermes' own first refusals (tools/cronjob_tools.py cronjob), answered without starting it.
    if (!out.schedule) throw invalidArgs('schedule is required for create');
    if (!out.prompt && !(skills && skills.length > 0)) throw invalidArgs('create requires either prompt or at least one skill');
  }
  if (action === 'update' && Object.keys(out).length === 1) throw invalidArgs('No updates provided.');
  return out;
}

/** The gateway's first checks: the host allows `action` and the call confirms it. */
function checkAllowed(permissions: CronjobPermissions, action: MutatingAction, args: Record<string, unknown>): void {
  if (!permissions.allowed.has(action)) {
    throw new GatewayError(
      ErrorCode.CRONJOB_MUTATIONS_DISABLED,
      permissions.error ??
        `cronjob ${action} is disabled on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting}); available here: ${['list', ...enabledActions(permissions)].join(', ')}. The host operator enables mutations with ${CRONJOB_MUTATIONS_ENV}=on (or a list such as pause,resume). Nothing was written.`,
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
}

/** Hermes' cron code run for `action` in a Hermes call worker (workers/hermes-call/cron.py). */
async function callHermes(config: GatewayConfig, caller: HermesCaller | undefined, slots: Slots, action: MutatingAction, payload: Record<string, unknown>, signal: AbortSignal): Promise<CronCallValue> {
  if (!caller?.available) {
    throw new GatewayError(
      ErrorCode.HERMES_AGENT_NOT_INSTALLED,
      `cronjob ${action} writes jobs with Hermes Agent's own cron code, and no Hermes Agent was found (/readyz component 'hermes' says where the gateway looked); without Hermes no job would ever run. Install Hermes, or set HERMES_AGENT_PYTHON to its interpreter, and restart the gateway. Nothing was written.`,
      { action },
    );
  }
  const lockWait = config.limits.cronjobLockWaitSeconds;
  try {
    return (await slots.run(signal, () =>
      caller.call('cron', action, { ...payload, lock_wait_seconds: lockWait }, { timeoutMs: config.limits.cronjobCallTimeoutSeconds * 1000, signal, mutates: true }),
    )) as CronCallValue;
  } catch (e) {
    if (e instanceof GatewayError && e.details?.outcome === 'unknown') {
      throw new GatewayError(
        e.code,
        `${e.message}. Run cronjob list before retrying cronjob ${action}: the change may already be in Hermes' jobs${action === 'create' ? ' (a second create would make a duplicate job)' : ''}.`,
        { ...e.details, action },
      );
    }
    throw e;
  }
}

/** The tool's answer to what Hermes' cron code answered (a refusal thrown with its stable code). */
function answerOf(log: Logger, action: MutatingAction, value: CronCallValue): Record<string, unknown> {
  if ('lock' in value) throw new GatewayError(ErrorCode.CRONJOB_LOCK_UNAVAILABLE, `${value.lock}; nothing was written`, { action });
  if ('skipped' in value) {
    log.info({ event: 'cronjob_run_skipped', action, job_id: value.skipped.job_id, reason: 'paused_or_disabled' }, 'cronjob run skipped: job is paused/disabled; nothing written');
    return { success: true, job: { ...value.skipped, executed: false, execution_success: false, execution_skipped: RUN_PAUSED_SKIP } };
  }
  if ('queued' in value) {
    log.info({ event: 'cronjob_mutation', action, job_id: value.queued.job_id }, 'cronjob run queued');
    return { success: true, job: { ...value.queued, executed: false, execution_success: false, execution_skipped: RUN_QUEUED } };
  }
  if (value.refused !== undefined) {
    const { error, success: _success, ...rest } = value.answer;
    const code = REFUSAL_CODES[value.refused] ?? ErrorCode.CRONJOB_REFUSED_BY_HERMES;
    throw new GatewayError(code, typeof error === 'string' ? error : `Hermes refused cronjob ${action}`, rest);
  }
  const answer = value.answer;
  const jobId = answer.job_id ?? (answer.job as HermesAnswer | undefined)?.job_id ?? (answer.removed_job as HermesAnswer | undefined)?.id;
  log.info({ event: 'cronjob_mutation', action, job_id: jobId }, `cronjob ${action}`);
  return answer;
}

/** The mutation half of the cronjob tool, for this host's configuration and permissions. */
export function cronjobMutator(config: GatewayConfig, log: Logger, permissions: CronjobPermissions, caller: HermesCaller | undefined, slots: Slots): CronjobMutator {
  return async (action, args, signal) => {
    checkAllowed(permissions, action, args);
    const jobRef = typeof args.job_id === 'string' ? args.job_id.trim() : '';
    if (action !== 'create' && !jobRef) throw invalidArgs(`job_id is required for action '${action}'`);
    const hermes = action === 'run' ? { job_id: jobRef, ...(typeof args.prompt === 'string' && args.prompt ? { prompt: args.prompt } : {}) } : await hermesArgs(config, action, args, jobRef);
    return answerOf(log, action, await callHermes(config, caller, slots, action, { args: hermes }, signal));
  };
}
