import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { HermesCaller } from '../../platform/hermes/call.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import { cronjobReadiness, cronjobTools } from './cronjob/index.js';
import { delegateTaskTools } from './delegate-task/index.js';
import { sessionDbReadiness, sessionSearchTools } from './session-search/index.js';

// Gateway-owned guarded adapters for three Hermes agent-loop capabilities that the stateless Hermes
// allowlist never exposes: session_search (read-only over state.db), cronjob (Hermes' jobs.json,
// changed by Hermes' own cron code through `caller`, mutations gated) and delegate_task (catalogued, always refused before any
// model inference). Readiness: `cronjob` (jobs.json readable; whether a Hermes makes the mutations) and `session_db`
// (state.db opened read-only like session_search; a missing database is ready, status `missing`).

/**
 * `release`: the Hermes Agent the gateway fronts, which session_search and cronjob follow (the
 * newest the gateway knows by default); `caller`: calls of that Hermes' own functions (cron's
 * mutations; none: they answer HERMES_AGENT_NOT_INSTALLED).
 */
export function guardedAdapter(config: GatewayConfig, log: Logger, release: HermesRelease = new HermesRelease(undefined), caller?: HermesCaller): Adapter {
  return {
    name: 'guarded',
    source: { name: 'guarded', tools: () => [...sessionSearchTools(config, log, release), ...cronjobTools(config, log, release, caller), ...delegateTaskTools()] },
    readiness: [cronjobReadiness(config, caller), sessionDbReadiness(config)],
  };
}
