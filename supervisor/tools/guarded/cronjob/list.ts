import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { GatewayConfig } from '../../../platform/config.js';
import type { HermesCaller } from '../../../platform/hermes/call.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import { formatJob, normalizeJobRecord, truthy } from './format.js';
import type { Slots } from './slots.js';
import { cronPaths, loadJobs } from './store.js';

// cronjob's read-only `list`: the gateway reads Hermes' jobs.json itself and shows each job as the
// detected Hermes' `_format_job` does; Hermes' own scheduler probe says whether the jobs will fire.

/** The `list` action for `release`; `caller` asks Hermes about its scheduler (through `slots`). */
export function cronjobLister(config: GatewayConfig, log: Logger, release: HermesRelease, caller: HermesCaller | undefined, slots: Slots) {
  const paths = cronPaths(config.hermesHome);

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

  return list;
}
