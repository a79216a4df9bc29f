import type { GatewayConfig } from '../../../platform/config.js';
import type { ReadinessComponent } from '../../../platform/health/readiness.js';
import type { HermesCaller } from '../../../platform/hermes/call.js';
import { CRONJOB_MUTATIONS_ENV, enabledActions, parseCronjobMutations } from './permissions.js';
import { cronPaths, loadJobs } from './store.js';

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
