import type { Logger } from 'pino';
import type { Adapter } from '../adapter.js';
import type { GatewayConfig } from '../config.js';
import { cronjobReadiness, cronjobTools } from './cronjob.js';
import { delegateTaskTools } from './delegate-task.js';
import { closeSessionSearchPool, sessionSearchTools } from './session-search.js';

// Gateway-owned guarded adapters for three Hermes agent-loop capabilities that the stateless Hermes
// allowlist never exposes: session_search (read-only over state.db), cronjob (Hermes' jobs.json
// under its own lock, mutations gated) and delegate_task (catalogued, always refused before any
// model inference).

export function guardedAdapter(config: GatewayConfig, log: Logger): Adapter {
  return {
    name: 'guarded',
    source: { name: 'guarded', tools: () => [...sessionSearchTools(config, log), ...cronjobTools(config, log), ...delegateTaskTools()] },
    readiness: [cronjobReadiness(config)],
    async close() {
      await closeSessionSearchPool();
    },
  };
}
