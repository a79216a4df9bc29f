import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { GatewayConfig } from '../../platform/config.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import { resolveHonchoConfig } from './config.js';
import { displayUrl, HonchoBackend } from './honcho.js';
import { MutationLedger } from './ledger.js';
import { memoryTools, type MemoryState } from './tools.js';

// The memory adapter: Hermes' Honcho memory through the official SDK. The configuration is
// resolved once at startup, like the rest of the frozen catalog (a Honcho config change needs a
// gateway restart). /readyz `memory`: ready when Honcho answers for the configured workspace,
// not_configured without a Honcho configuration, error for an unusable configuration or an
// unreachable/refusing Honcho. /healthz reports the mutations whose outcome is still unknown.

export interface MemoryAdapter extends Adapter {
  ledger: MutationLedger;
  state: MemoryState;
}

/** `release`: the Hermes Agent the gateway fronts, whose Honcho identity rules memory follows (the newest the gateway knows by default). */
export function memoryAdapter(config: GatewayConfig, log: Logger, release: HermesRelease = new HermesRelease(undefined)): MemoryAdapter {
  const resolution = resolveHonchoConfig(config.hermesHome, config.honchoEnv, config.projectDir, release, config.limits.hermesConfigMaxBytes);
  let state: MemoryState;
  if (resolution.status === 'configured') {
    const { settings } = resolution;
    state = { kind: 'configured', backend: new HonchoBackend(settings, config.limits.memoryWorkerMaxSeconds * 1000) };
    log.info(
      {
        event: 'memory_configured',
        base_url: displayUrl(settings.baseURL),
        workspace: settings.identity.workspace,
        user_peer: settings.identity.userPeer,
        assistant_peer: settings.identity.assistantPeer,
        host: settings.identity.host,
        config: settings.source,
        api_key: settings.apiKeySource,
      },
      'Honcho memory configured',
    );
    for (const warning of settings.warnings) log.warn({ event: 'memory_config_warning', warning });
  } else {
    state = resolution.status === 'not_configured' ? { kind: 'not_configured', reason: resolution.reason } : { kind: 'invalid', reason: resolution.reason };
    log[resolution.status === 'invalid' ? 'error' : 'info']({ event: `memory_${resolution.status}`, reason: resolution.reason, config: resolution.source }, resolution.reason);
    for (const warning of resolution.warnings) log.warn({ event: 'memory_config_warning', warning });
  }
  const ledger = new MutationLedger();

  return {
    name: 'memory',
    state,
    ledger,
    source: { name: 'memory', tools: () => memoryTools({ state, limits: config.limits, ledger, log }), configured: state.kind === 'configured' },
    readiness: [
      {
        name: 'memory',
        probe: () => {
          if (state.kind === 'configured') return state.backend.probe();
          return {
            ready: false,
            status: state.kind === 'not_configured' ? 'not_configured' : 'error',
            reason: state.reason,
            action:
              state.kind === 'not_configured'
                ? `configure Honcho in ${join(config.hermesHome, 'honcho.json')} (docs/tools/memory.md), or set HERMES_MCP_OPTIONAL_COMPONENTS=memory to run without Honcho`
                : 'fix the Honcho configuration named in the reason and restart the gateway, or set HERMES_MCP_OPTIONAL_COMPONENTS=memory to run without Honcho',
          };
        },
      },
    ],
    health: () => ({ memory_unresolved_mutations: ledger.unresolvedCount }),
  };
}
