import type { ToolDefinition } from '../../../core/tool-types.js';
import { HermesApi } from '../hermes-api.js';
import { READ_ONLY } from '../schema.js';
import { serviceOf, type BridgeService, type BridgeState } from '../service.js';

// list_agents: the registry's agents, each probed for whether a task could go to it now.

async function listAgents(service: BridgeService, signal: AbortSignal): Promise<Record<string, unknown>> {
  const view = service.registry.current();
  const probeSignal = AbortSignal.any([signal, AbortSignal.timeout(service.limits.bridgeProbeTimeoutSeconds * 1000)]);
  const agents = await Promise.all(
    view.agents.map(async (agent) => {
      const key = service.registry.keyOf(agent);
      // Reachability, the key and the profile are probed (GET /health, GET /v1/models) only for agents that could be used at all.
      const problem = 'key' in key ? await new HermesApi(agent.baseUrl, key.key, 65_536).probe(probeSignal) : undefined;
      const reason = 'key' in key ? problem?.reason : key.reason;
      return {
        name: agent.name,
        description: agent.description,
        capabilities: agent.capabilities,
        kind: agent.kind,
        available: reason === undefined,
        ...(reason ? { unavailable_reason: reason } : {}),
        // What to do about a refused key or an unserved profile (never a key).
        ...(problem && problem.reason !== 'unreachable' ? { hint: problem.message } : {}),
        default: agent.name === view.defaultName,
        ...(agent.profile ? { local_profile: agent.profile } : {}),
      };
    }),
  );
  return { agents, default: view.defaultName, count: agents.length, ...(view.degraded ? { degraded: view.degraded } : {}), ...(view.error ? { registry_error: view.error } : {}) };
}

export function listAgentsTool(state: BridgeState): ToolDefinition {
  return {
    name: 'list_agents',
    description: 'The Hermes agents tasks can go to: name, description, capabilities, kind, availability and which is the default. Never returns credentials.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: READ_ONLY,
    handler: async (_args, ctx) => ({ structured: await listAgents(serviceOf(state), ctx.signal) }),
  };
}
