import type { Logger } from 'pino';
import { GatewayError } from '../../../../shared/errors.js';
import { withHermesArgumentRepair } from '../../../core/hermes-args.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import type { GatewayConfig } from '../../../platform/config.js';
import type { HermesCaller } from '../../../platform/hermes/call.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import { cronjobLister } from './list.js';
import { cronjobMutator } from './mutations.js';
import { CRONJOB_MUTATIONS_ENV, enabledActions, MUTATING_ACTIONS, parseCronjobMutations, type CronjobPermissions } from './permissions.js';
import { invalidArgs } from './records.js';
import { ACTION_ALIASES, appliesFor, cronjobDescription, cronjobInputSchema, type Action } from './schema.js';
import { Slots } from './slots.js';

// cronjob — Hermes' cron job manager (its `cronjob` tool, `cronjob_manage` in later Hermes, over
// cron/jobs.py) as a gateway-owned guarded adapter, following the Hermes the gateway fronts:
//   - `list` is read-only and always available: the gateway reads `$HERMES_HOME/cron/jobs.json`
//     itself (no lock, like Hermes; Hermes replaces the file atomically) and shows each job as the
//     detected Hermes' `_format_job` does; where that Hermes' list says whether its scheduler runs
//     (gateway_running), Hermes' own probe answers it;
//   - `create`, `update`, `pause`, `resume`, `remove`, `run` are mutations: refused unless the
//     host enables them (HERMES_MCP_CRONJOB_MUTATIONS, default off) and the call carries
//     `confirm: true`; then, once the gateway's own checks pass, the detected Hermes makes the
//     change with its own code under its own lock (mutations.ts): its record fields, schedule
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
// The tool's words (description, schema, which arguments each action takes): schema.ts; list:
// list.ts; the readiness component: readiness.ts.

export { cronjobReadiness } from './readiness.js';

/** What the tool's description says of this host's mutation setting. */
function hostStateOf(permissions: CronjobPermissions): string {
  const enabledList = enabledActions(permissions);
  if (enabledList.length === MUTATING_ACTIONS.length) return `enabled on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting})`;
  if (enabledList.length > 0) return `enabled on this host only for ${enabledList.join(', ')} (${CRONJOB_MUTATIONS_ENV}=${permissions.setting})`;
  return `DISABLED on this host (${CRONJOB_MUTATIONS_ENV}=${permissions.setting}); only list works`;
}

/**
 * The cronjob tool for the Hermes the gateway fronts: `release` is what it follows (its schema,
 * its list answer), `caller` runs that Hermes' own cron code (none: mutations answer
 * HERMES_AGENT_NOT_INSTALLED, list still works).
 */
export function cronjobTools(config: GatewayConfig, log: Logger, release: HermesRelease, caller: HermesCaller | undefined): ToolDefinition[] {
  const permissions = parseCronjobMutations(config.cronjobMutations);
  if (permissions.error) log.warn({ event: 'cronjob_permissions_invalid', reason: permissions.error }, 'cronjob mutations disabled');
  const slots = new Slots(config.limits.cronjobConcurrentCalls);
  const mutate = cronjobMutator(config, log, permissions, caller, slots);
  const list = cronjobLister(config, log, release, caller, slots);
  const applies = appliesFor(release);

  const cronjob: ToolDefinition = {
    name: 'cronjob',
    description: cronjobDescription(release, hostStateOf(permissions)),
    inputSchema: cronjobInputSchema(release),
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
