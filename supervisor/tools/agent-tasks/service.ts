import { readFileSync, statSync } from 'node:fs';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { Limits } from '../../../shared/limits.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import { ABSENT, type AgentCapabilities, type CapabilityCache } from './capabilities.js';
import { HermesApi } from './hermes-api.js';
import type { AgentEntry, AgentRegistry } from './registry.js';
import type { BridgeSettings } from './settings.js';
import type { TaskStore } from './tasks.js';

// What the agent-task tools share: the settings, the registry, the task store, what each agent's
// API server said it can do, and the resolution of an agent name to a ready API client (refused
// before any upstream call when the name is unknown or the agent has no key).

export interface BridgeService {
  settings: BridgeSettings;
  registry: AgentRegistry;
  store: TaskStore;
  limits: Limits;
  /** GET /v1/capabilities answers per (base URL, key), kept bridgeCapabilitiesCacheSeconds. */
  capabilities: CapabilityCache;
  /** The Hermes the gateway fronts: followed for an agent whose API server reports no version. */
  release: HermesRelease;
}

/** Whether the bridge is set up: every agent-task tool is catalogued either way and answers BRIDGE_NOT_CONFIGURED without one. */
export type BridgeState = { kind: 'configured'; service: BridgeService } | { kind: 'not_configured' | 'invalid'; reason: string };

export function serviceOf(state: BridgeState): BridgeService {
  if (state.kind === 'configured') return state.service;
  throw new GatewayError(ErrorCode.BRIDGE_NOT_CONFIGURED, state.reason);
}

export interface ResolvedAgent {
  agent: AgentEntry;
  api: HermesApi;
}

export function resolveAgent(service: BridgeService, name: string | undefined): ResolvedAgent {
  const view = service.registry.current();
  const agent = service.registry.find(name);
  if (!agent) {
    throw new GatewayError(ErrorCode.UNKNOWN_AGENT, `unknown agent ${JSON.stringify(name)}; list_agents shows the registered agents (${view.agents.map((a) => a.name).join(', ')})`);
  }
  const key = service.registry.keyOf(agent);
  if (!('key' in key)) {
    throw new GatewayError(ErrorCode.AGENT_UNAVAILABLE, `agent ${agent.name} has no resolvable API key (key_env, key_file or key_env_file)`, { unavailable_reason: key.reason });
  }
  return { agent, api: new HermesApi(agent.baseUrl, key.key, service.limits.bridgeUpstreamMaxBytes) };
}

/**
 * What the agent's API server says it can do (capabilities.ts), from the cache or asked now. A
 * refused key, an unreachable agent, a deadline or a cancellation is the caller's answer; a server
 * that answered something unusable (5xx, not JSON) counts as `absent` this time and is asked again
 * on the next use.
 */
export async function capabilitiesOf(service: BridgeService, resolved: ResolvedAgent, signal: AbortSignal): Promise<AgentCapabilities> {
  const { agent, api } = resolved;
  try {
    return await service.capabilities.get(api.identity, () => api.capabilities(withDeadline(signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${agent.name}`)));
  } catch (e) {
    if (e instanceof GatewayError && e.code === ErrorCode.UPSTREAM_FAILED) return ABSENT;
    throw e;
  }
}

/**
 * The Hermes an agent runs, for the changes no capability shows (release.ts API_SERVER_CHANGES):
 * the version its API server reports, else the Hermes the gateway fronts (itself the newest the
 * gateway knows when unknown).
 */
export function agentRelease(service: BridgeService, capabilities: AgentCapabilities): HermesRelease {
  return capabilities.version ? new HermesRelease(capabilities.version) : service.release;
}

/** The contract injected as system instructions on every task, read per call so edits apply at once. */
export function readContract(service: BridgeService): string | undefined {
  const file = service.settings.contractPath;
  if (!file) return undefined;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > service.limits.bridgeContractMaxBytes) throw new Error(`larger than ${service.limits.bridgeContractMaxBytes} bytes`);
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new GatewayError(ErrorCode.CONTRACT_UNREADABLE, `the task contract HERMES_CONTRACT_PATH=${file} cannot be used: ${(e as Error).message}`);
  }
}

/** `signal` plus a deadline of `seconds`, whose abort reason names the deadline. */
export function withDeadline(signal: AbortSignal, seconds: number, what: string): AbortSignal {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new GatewayError(ErrorCode.TASK_TIMEOUT, `${what} did not answer within ${seconds} s`)), seconds * 1000);
  timer.unref();
  signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  return AbortSignal.any([signal, deadline.signal]);
}
