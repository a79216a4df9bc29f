import type { Logger } from 'pino';
import type { ToolDefinition, ToolSource } from './tool-types.js';
import { discoveryTools, DISCOVERY_TOOL_NAMES } from './catalog/disclosure.js';
import { Catalog, compileArgumentValidator, type CatalogEntry } from './catalog/catalog.js';
import { loadToolPolicy, type ToolPolicy } from './catalog/policy.js';
import type { GatewayConfig } from '../platform/config.js';
import { Dispatcher, TOOL_CALL } from './dispatch.js';
import type { Adapter } from './adapter.js';
import { closeCpuPool } from '../platform/thread-pool/pool.js';
import { Readiness } from '../platform/health/readiness.js';
import { missingRoots, rootsReadiness } from '../platform/health/roots.js';
import { CapabilityStore, OwnerRegistry } from './owners/owners.js';
import { sessionTools } from './owners/session-tools.js';
import { OrphanReaper } from '../platform/spawning/orphan-reaper.js';

// The gateway over the adapters the composition root (supervisor/compose/) gives it: registers
// every source and readiness component, freezes the catalog, and exposes what the MCP layer needs:
// the six public tools to list, and the Dispatcher that calls them.

export interface GatewayOptions {
  config: GatewayConfig;
  log: Logger;
  /** Clock for token, session and job expiry and deadlines (injectable so they can be exercised without waiting). */
  now?: () => number;
  /** Adapters contributed by subsystems (native execution, jobs, graph, ...). */
  adapters?: Adapter[];
  policy?: ToolPolicy;
  /** The owner registry, when adapters built before the gateway need it (the terminal and file tools share each owner's cwd through it). */
  owners?: OwnerRegistry;
}

/** An owner registry for `config`, logging its failing release hooks. */
export function ownerRegistry(config: GatewayConfig, log: Logger): OwnerRegistry {
  return new OwnerRegistry({
    defaultCwd: config.terminalCwd,
    onHookError: (hook, owner, error) => log.error({ event: 'release_hook_failed', hook, owner_kind: owner.split(':')[0], err: String(error) }),
  });
}

/** The MCP `Tool` shape served by tools/list. */
interface PublicTool {
  name: string;
  description: string;
  inputSchema: ToolDefinition['inputSchema'];
  annotations: ToolDefinition['annotations'];
}

/** What Gateway.create composes before the gateway exists. */
interface GatewayParts {
  config: GatewayConfig;
  log: Logger;
  now: () => number;
  owners: OwnerRegistry;
  capabilities: CapabilityStore;
  readiness: Readiness;
  catalog: Catalog;
  dispatcher: Dispatcher;
  publicList: readonly PublicTool[];
  adapters: Adapter[];
}

export class Gateway {
  readonly config: GatewayConfig;
  readonly log: Logger;
  readonly now: () => number;
  readonly owners: OwnerRegistry;
  readonly capabilities: CapabilityStore;
  readonly readiness: Readiness;
  /** The frozen catalog of every tool. */
  readonly catalog: Catalog;
  /** What tools/call on the MCP endpoint calls (Dispatcher.callPublic). */
  readonly dispatcher: Dispatcher;
  /** Reaps the zombies this process adopted as a child subreaper; /healthz reports the count. */
  readonly orphans = new OrphanReaper();
  private readonly publicList: readonly PublicTool[];
  private readonly adapters: Adapter[];
  private readonly sweepTimer: NodeJS.Timeout;
  readonly startedAt = Date.now();

  private constructor(parts: GatewayParts) {
    this.config = parts.config;
    this.log = parts.log;
    this.now = parts.now;
    this.owners = parts.owners;
    this.capabilities = parts.capabilities;
    this.readiness = parts.readiness;
    this.catalog = parts.catalog;
    this.dispatcher = parts.dispatcher;
    this.publicList = parts.publicList;
    this.adapters = parts.adapters;
    this.sweepTimer = setInterval(() => this.sweepExpiredCapabilities(), 30_000);
    this.sweepTimer.unref();
    this.orphans.start(parts.config.limits.orphanReapIntervalSeconds * 1000);
  }

  static async create(options: GatewayOptions): Promise<Gateway> {
    const { config, log } = options;
    const now = options.now ?? Date.now;
    const owners = options.owners ?? ownerRegistry(config, log);
    const capabilities = new CapabilityStore({ ttlMs: config.limits.sessionTokenTtlSeconds * 1000, maxActive: config.limits.maxSessionTokens, now });
    const policy = options.policy ?? loadToolPolicy();
    const adapters = options.adapters ?? [];
    const sources = catalogSources(adapters, sessionTools({
      capabilities,
      owners,
      ttlSeconds: config.limits.sessionTokenTtlSeconds,
      onReleaseError: (owner, error) => log.error({ event: 'owner_release_failed', owner_kind: owner.split(':')[0], err: String(error) }),
    }));
    const catalog = await Catalog.assemble(sources, policy);
    for (const d of catalog.report.dropped) log.info({ event: 'tool_dropped_by_policy', source: d.source, tool: d.name, reason: d.reason });

    const readiness = new Readiness(config.optionalComponents);
    readiness.register(rootsReadiness(config));
    const missing = missingRoots(config.roots);
    if (missing.length > 0) {
      log.warn({ event: 'roots_missing', missing, terminal_cwd: config.terminalCwd }, `project roots that do not exist admit nothing: ${missing.join(', ')} (HERMES_MCP_ROOTS)`);
    }
    for (const c of adapters.flatMap((a) => a.readiness ?? [])) readiness.register(c);
    for (const a of adapters) if (a.releaseHook) owners.registerReleaseHook(a.name, a.releaseHook);

    const { publicTools, publicList } = publicSurface(catalog, policy, config.limits);
    const dispatcher = new Dispatcher({
      catalog,
      publicTools,
      owners,
      capabilities,
      limits: config.limits,
      // The Error itself: the logger's err serializer keeps (and redacts) its message and stack; a
      // string there would be spread into one field per character.
      onInternalError: (tool, error) => log.error({ event: 'tool_internal_error', tool, ...(error instanceof Error ? { err: error } : { reason: String(error) }) }),
      callHooks: adapters.flatMap((a) => (a.callHook ? [a.callHook] : [])),
    });
    const gw = new Gateway({ config, log, now, owners, capabilities, readiness, catalog, dispatcher, publicList, adapters });
    log.info({ event: 'catalog_frozen', tools: catalog.size, public: publicList.length }, 'catalog frozen');
    return gw;
  }

  publicToolList(): readonly PublicTool[] {
    return this.publicList;
  }

  /** An owner ended (legacy session gone, capability expired): release what it holds. */
  endOwner(ownerId: string, reason: string): void {
    this.log.info({ event: 'owner_ended', owner_kind: ownerId.split(':')[0], reason });
    void this.owners.release(ownerId);
  }

  sweepExpiredCapabilities(): void {
    for (const record of this.capabilities.sweepExpired()) this.endOwner(`cap:${record.id}`, 'expired');
  }

  /** What the adapters report beside readiness (job admission capability); never affects the status code. */
  readyFacts(): Record<string, unknown> {
    return Object.assign({}, ...this.adapters.map((a) => a.readyFacts?.() ?? {}));
  }

  /** Liveness facts the adapters report (never calls a provider). */
  healthFacts(): Record<string, unknown> {
    return Object.assign({}, ...this.adapters.map((a) => a.health?.() ?? {}));
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await Promise.all(this.adapters.map((a) => a.close?.()));
    this.orphans.stop();
    await closeCpuPool();
  }
}

/**
 * The catalog's sources. The gateway's own tools and Hermes' come from several adapters each under
 * one source name, so the policy filters each as one upstream; asked in the adapters' order.
 * Hermes' tools (the skills read from $HERMES_HOME and its own tool server's web, vision, image and
 * video tools) are asked before every other adapter's source, so those can describe what Hermes'
 * tool server turned out to serve.
 */
function catalogSources(adapters: readonly Adapter[], sessions: ToolDefinition[]): ToolSource[] {
  const merged = async (name: string, catalogued: (name: string) => boolean) =>
    (await Promise.all(adapters.flatMap((a) => (a.source?.name === name ? [a.source.tools(catalogued)] : [])))).flat();
  return [
    { name: 'gateway', tools: async (catalogued) => [...(await merged('gateway', catalogued)), ...sessions] },
    { name: 'hermes', tools: (catalogued) => merged('hermes', catalogued) },
    ...adapters.flatMap((a) => (a.source && a.source.name !== 'hermes' && a.source.name !== 'gateway' ? [a.source] : [])),
  ];
}

/**
 * The public tools: tool_search and tool_describe (built over the frozen catalog), the catalogued
 * ones the policy makes public, and tool_call, which the Dispatcher handles itself; and the list
 * tools/list serves, in the policy's order.
 */
function publicSurface(catalog: Catalog, policy: ToolPolicy, limits: GatewayConfig['limits']): { publicTools: Map<string, CatalogEntry>; publicList: readonly PublicTool[] } {
  const discovery = new Map<string, CatalogEntry>(
    discoveryTools({ catalog, limits }).map((tool) => [tool.name, { tool, source: 'gateway', configured: true, validate: compileArgumentValidator(tool) }]),
  );
  const publicTools = new Map<string, CatalogEntry>();
  const listed: Array<Pick<ToolDefinition, 'description' | 'inputSchema' | 'annotations'>> = [];
  for (const name of policy.publicOrder) {
    if (name === TOOL_CALL.name) {
      listed.push(TOOL_CALL);
      continue;
    }
    const entry = discovery.get(name) ?? catalog.get(name);
    if (!entry) throw new Error(`catalog: public tool "${name}" is not provided by any source`);
    publicTools.set(name, entry);
    listed.push(entry.tool);
  }
  for (const name of DISCOVERY_TOOL_NAMES) if (!policy.publicOrder.includes(name)) throw new Error(`policy: discovery tool ${name} must be public`);
  const publicList = Object.freeze(
    policy.publicOrder.map((name, i) => {
      const tool = listed[i]!;
      return Object.freeze({ name, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations });
    }),
  );
  return { publicTools, publicList };
}
