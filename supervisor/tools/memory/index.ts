import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { GatewayConfig } from '../../platform/config.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import { resolveHonchoConfig } from './config.js';
import { displayUrl, HonchoBackend } from './honcho.js';
import { MutationLedger } from './ledger.js';
import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { MemoryState, MemoryToolDeps } from './calls.js';
import { concludeTool } from './conclude/index.js';
import { contextTool } from './context/index.js';
import { profileTool } from './profile/index.js';
import { reasoningTool } from './reasoning/index.js';
import { searchTool } from './search/index.js';

// The memory adapter: Hermes' Honcho memory through the official SDK. The configuration is
// resolved once at startup, like the rest of the frozen catalog (a Honcho config change needs a
// gateway restart). /readyz `memory`: ready when Honcho answers for the configured workspace,
// not_configured without a Honcho configuration, error for an unusable configuration or an
// unreachable/refusing Honcho. /healthz reports the mutations whose outcome is still unknown.

// The five memory tools over Honcho v3 (the REST API in Honcho's docs/v3/openapi.json):
//
//   memory_profile    GET  peers/{observer}/card?target={user}, else peers/{user}/card     (read-only)
//   memory_search     POST search (filter peer_perspective {user}: Hermes' message excerpts)
//                     + GET peers/{observer}/context?target={user}&search_query&search_top_k
//                     (fallback POST peers/{observer}/representation) + POST conclusions/query
//   memory_context    GET  peers/{observer}/context?target={user}[&search_query] + POST conclusions/list
//                     + GET sessions/{s}/context?summary=true&peer_target={user} (s: `session`, else
//                     the project's Hermes session, left out when Honcho has none)
//   memory_reasoning  POST peers/{observer}/chat (target {user})                       (Honcho's LLM)
//   memory_conclude   POST conclusions | POST conclusions/list | DELETE conclusions/{id}
//
// Reads take Hermes' perspective (its assistant peer's view of the user, as Hermes' own tools read it,
// or the user's own view when Hermes' assistant does not observe others: settings.readObserver);
// writes are conclusions observed by the assistant peer `chatgpt` about the user peer. Every call
// is `native`: it is counted in /healthz inflight_native_calls until its Honcho request really ends.
// (calls.ts) A call answers after memoryTimeoutSeconds; a read that ran out answers MEMORY_TIMEOUT (safe to
// retry), a mutation whose request was already sent answers `state: unknown` and is never re-sent.

/** The five memory tools, each with Hermes' dispatch coercion (core/hermes-args.ts): `limit: "5"` is 5, as Hermes' honcho tools read their numbers with int(). */
function memoryTools(deps: MemoryToolDeps): ToolDefinition[] {
  return [profileTool(deps), searchTool(deps), contextTool(deps), reasoningTool(deps), concludeTool(deps)].map(withHermesArgumentRepair);
}

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
