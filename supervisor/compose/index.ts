import type { Hono, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { Gateway, ownerRegistry, type GatewayOptions } from '../core/gateway.js';
import type { GatewayConfig } from '../platform/config.js';
import { locateHermes, type HermesInstall } from '../platform/hermes/locate.js';
import { GatewayMetrics } from '../platform/telemetry.js';
import { createApp } from '../http/app.js';
import { assertAuthFilesSafe, createAuthEdge, type AuthEdge } from '../http/auth/index.js';
import { bridgeAdapter, type BridgeAdapter } from '../http/bridge-profile/index.js';
import { createMcpEndpoint, type HttpLifecycle, type McpEndpoint } from '../http/mcp/endpoint.js';
import { assertLoopback, serveGateway, type Listener } from '../http/server.js';
import { jobsAdapter, type JobsAdapter } from '../tools/jobs/index.js';
import { backendAdapters, composedAdapters, type BackendAdapters } from './adapters.js';
import { nativeAdapter, type NativeAdapter } from './native.js';

// The composition root: the one place that builds every adapter and the gateway over them, and
// hands the HTTP layer what it serves. `startGateway` is the served gateway (bin/gateway.ts, tests,
// benches); `composeForCheck` the same adapters for `hermes-mcp-gateway doctor` (compose/check.ts).

export type StartOptions = GatewayOptions & { config: GatewayConfig; log: Logger; hermes?: HermesInstall };

export interface RunningGateway extends Listener {
  gateway: Gateway;
  /** The Hermes Agent this gateway fronts, as its start found it. */
  hermes: HermesInstall;
  native: NativeAdapter;
  jobs: JobsAdapter;
  memory: BackendAdapters['memory'];
  /** The hermes-mcp-bridge profile; `bridgeUrl` is its own MCP_PORT listener, when configured. */
  bridge: BridgeAdapter;
  bridgeUrl?: string;
  graph: BackendAdapters['graph'];
  /** Hermes' own tool server (web, vision, image, video tools). */
  hermesTools: BackendAdapters['hermesTools'];
  /** This instance's /metrics registry. */
  metrics: GatewayMetrics;
}

/** The gateway composed, before it listens. */
interface Composed {
  gateway: Gateway;
  hermes: HermesInstall;
  native: NativeAdapter;
  jobs: JobsAdapter;
  bridge: BridgeAdapter;
  backends: BackendAdapters;
  metrics: GatewayMetrics;
  endpoint: McpEndpoint;
  auth: AuthEdge | undefined;
  app: Hono;
  lifecycle: HttpLifecycle;
}

/** Composes the gateway, then serves it on loopback. */
export async function startGateway(options: StartOptions): Promise<RunningGateway> {
  const { config, log } = options;
  const composed = await compose(options);
  const { gateway, bridge, endpoint, auth, backends } = composed;
  const listener = await serveGateway(config, {
    app: composed.app,
    lifecycle: composed.lifecycle,
    // The bridge's own MCP_PORT listener counts too: its tasks are this gateway's calls.
    openElsewhere: () => bridge.openRequests(),
    inflightNativeCalls: () => gateway.owners.inflightNativeCalls,
    async stop() {
      await endpoint.close();
      await gateway.close();
      auth?.close();
    },
  });
  const bridgeUrl = await bridge.listen();
  log.info({ event: 'listening', host: config.host, port: listener.port }, 'hermes-mcp-gateway listening');
  // Supervisors and scripts wait for this line; don't leave it in the log buffer.
  log.flush();
  const { hermes, native, jobs, metrics } = composed;
  return { ...listener, gateway, hermes, native, jobs, memory: backends.memory, bridge, ...(bridgeUrl ? { bridgeUrl } : {}), graph: backends.graph, hermesTools: backends.hermesTools, metrics };
}

/** Every adapter, the gateway over them and the app that serves it; nothing listens yet. */
async function compose(options: StartOptions): Promise<Composed> {
  const { config, log } = options;
  // Before any adapter starts a worker: a host that is not loopback, or an unsafe passphrase file,
  // refuses startup with nothing to undo.
  assertLoopback(config.host);
  assertAuthFilesSafe(config.auth);
  // Which Hermes Agent this gateway fronts, before anything that follows its version is built.
  const hermes = options.hermes ?? (await locateHermes(config));
  log.info({ event: 'hermes_agent', state: hermes.state, version: hermes.release.version ?? null, supported: hermes.release.supported, python: hermes.python ?? null }, 'Hermes Agent located');
  // Before the native adapter: its terminal records each owner's cwd there, and its file tools read it.
  const owners = options.owners ?? ownerRegistry(config, log);
  const native = nativeAdapter(config, log, owners, hermes.release, hermes);
  // Before the other adapters, so the workers they start while the gateway is composed (the graph
  // and Hermes tool servers) are counted too.
  const late = lateMetricSources();
  const metrics = new GatewayMetrics({ ...late.sources, liveWorkers: () => native.runtime.liveWorkerPids().length });
  native.runtime.spawnObserver = (kind, readySeconds) => metrics.observeSpawn(kind, readySeconds);
  const jobs = jobsAdapter(native, log, options.now);
  const bridge = bridgeAdapter(config, log, hermes.release);
  const backends = backendAdapters(config, hermes, native, log, options.policy);
  const gateway = await Gateway.create({ ...options, owners, adapters: [...composedAdapters(backends, native, { jobs, bridge }), ...(options.adapters ?? [])] });
  const endpoint = createMcpEndpoint(gateway, (error) => log.warn({ event: 'mcp_rejected', reason: error.message }));
  // Authentication (public URL, credentials, OAuth) when configured; undefined leaves loopback use as it was.
  const auth = await createAuthEdge(config, log, options.now);
  const { app, lifecycle, counters } = createApp(gateway, endpoint, auth, metrics);
  late.composed(gateway, counters, jobs);
  mountBridge(app, bridge, auth, config);
  bridge.attach({ draining: () => lifecycle.draining, counted: (owner, work) => gateway.owners.runLeased(owner, work) });
  return { gateway, hermes, native, jobs, bridge, backends, metrics, endpoint, auth, app, lifecycle };
}

/**
 * What /metrics reads of a gateway composed after the registry exists: read at scrape time, empty
 * until the composition is done. The tools a request may be labelled with are decided once, when
 * the catalog is frozen: the label check is a set lookup.
 */
function lateMetricSources() {
  const knownTools = new Set<string>();
  let gateway: Gateway | undefined;
  let counters: { inflightRequests: number } | undefined;
  let jobs: JobsAdapter | undefined;
  return {
    sources: {
      knownTool: knownTools.has.bind(knownTools),
      inflightRequests: () => counters?.inflightRequests ?? 0,
      inflightNativeCalls: () => gateway?.owners.inflightNativeCalls ?? 0,
      jobCounts: () => jobs?.jobCounts() ?? {},
      readiness: async () => (gateway ? gateway.readiness.check() : { components: {} }),
    },
    composed(composedGateway: Gateway, composedCounters: { inflightRequests: number }, composedJobs: JobsAdapter) {
      gateway = composedGateway;
      counters = composedCounters;
      jobs = composedJobs;
      for (const name of gateway.catalog.names()) knownTools.add(name);
      for (const tool of gateway.publicToolList()) knownTools.add(tool.name);
    },
  };
}

/**
 * The bridge profile at /bridge. It has its own token and none of the gateway's authentication:
 * with a public URL, it is for the operator on this machine only, never reachable through the
 * public name.
 */
function mountBridge(app: Hono, bridge: BridgeAdapter, auth: AuthEdge | undefined, config: GatewayConfig): void {
  if (auth && config.auth.publicUrls.length > 0) {
    const localOnly: MiddlewareHandler = (c, next) => (auth.isLocal(c.req.raw) ? next() : Promise.resolve(c.json({ error: 'FORBIDDEN', message: '/bridge is served on loopback only when HERMES_MCP_PUBLIC_URL is set' }, 403)));
    app.use('/bridge', localOnly);
    app.use('/bridge/*', localOnly);
  }
  app.route('/bridge', bridge.profile);
}
