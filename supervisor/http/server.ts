import { serve, type ServerType } from '@hono/node-server';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { MiddlewareHandler } from 'hono';
import { createApp } from './app.js';
import { assertAuthFilesSafe, createAuthEdge } from './auth/index.js';
import { bridgeAdapter, type BridgeAdapter } from './bridge-profile/index.js';
import { isLoopbackHost, type GatewayConfig } from '../platform/config.js';
import { Gateway, ownerRegistry, type GatewayOptions } from '../core/gateway.js';
import { createMcpEndpoint } from './mcp/endpoint.js';
import { graphAdapter, type GraphAdapter } from '../tools/graph/index.js';
import { hermesToolsAdapter, type HermesToolsAdapter } from '../tools/hermes-tools/index.js';
import { guardedAdapter } from '../tools/guarded/index.js';
import { browserAdapter } from '../tools/browser/index.js';
import { jobsAdapter, type JobsAdapter } from '../tools/jobs/index.js';
import { memoryAdapter, type MemoryAdapter } from '../tools/memory/index.js';
import { lspAdapter } from '../tools/lsp/index.js';
import { skillsAdapter } from '../tools/skills/index.js';
import { startupAdapter } from '../tools/startup/index.js';
import { nativeAdapter, type NativeAdapter } from '../tools/native-adapter.js';
import { GatewayMetrics } from '../platform/metrics.js';
import { hermesProbe, locateHermes, type HermesInstall } from '../platform/hermes/locate.js';
import type { Adapter } from '../core/adapter.js';
import { listenerTimeouts } from './edge/keep-alive.js';

// Starts the gateway: composition, then an HTTP listener on loopback only.

export interface RunningGateway {
  gateway: Gateway;
  /** The Hermes Agent this gateway fronts, as its start found it. */
  hermes: HermesInstall;
  native: NativeAdapter;
  jobs: JobsAdapter;
  memory: MemoryAdapter;
  /** The hermes-mcp-bridge profile; `bridgeUrl` is its own MCP_PORT listener, when configured. */
  bridge: BridgeAdapter;
  bridgeUrl?: string;
  graph: GraphAdapter;
  /** Hermes' own tool server (web, vision, image, video tools). */
  hermesTools: HermesToolsAdapter;
  /** This instance's /metrics registry. */
  metrics: GatewayMetrics;
  port: number;
  url: string;
  /** The HTTP listener (its keep-alive, headers and request timeouts are the http* limits). */
  httpServer: Server;
  /**
   * The first half of a controlled shutdown: stop taking new work (/mcp answers 503 with
   * Retry-After, /readyz 503 `draining`, /healthz keeps answering), then wait until no POST /mcp
   * response is still open and no native call runs, at most `timeoutMs`. Reports what was left.
   */
  drain(timeoutMs: number): Promise<DrainOutcome>;
  close(): Promise<void>;
}

interface DrainOutcome {
  drained: boolean;
  open_requests: number;
  inflight_native_calls: number;
}

const DRAIN_POLL_MS = 25;

/** The `hermes` readiness component: which Hermes Agent the gateway fronts, and whether it supports it. */
export function hermesAdapter(install: HermesInstall): Adapter {
  return { name: 'hermes', readiness: [{ name: 'hermes', probe: () => hermesProbe(install) }] };
}

/**
 * The adapters of Hermes' files and the backends, built but not serving: the gateway composes them,
 * and `hermes-mcp-gateway doctor` builds the same ones to run their own readiness probes. `install`
 * is the Hermes Agent the gateway fronts (locateHermes): the families that follow Hermes' version
 * read it there.
 */
export function backendAdapters(config: GatewayConfig, install: HermesInstall, native: NativeAdapter, log: Logger, policy?: GatewayOptions['policy']) {
  const hermesTools = hermesToolsAdapter(config, install, native.runtime, log, policy);
  return {
    hermes: hermesAdapter(install),
    startup: startupAdapter(config),
    skills: skillsAdapter(config, install.release),
    guarded: guardedAdapter(config, log, install.release, native.hermesCaller),
    memory: memoryAdapter(config, log, install.release),
    browser: browserAdapter(config, log, hermesTools.vision),
    lsp: lspAdapter(config, native.runtime, log),
    graph: graphAdapter(config, native.runtime, log),
    hermesTools,
  };
}

export async function startGateway(options: GatewayOptions & { config: GatewayConfig; log: Logger; hermes?: HermesInstall }): Promise<RunningGateway> {
  const { config, log } = options;
  // Checked again here (not only when parsing the environment) so no embedding can bind wider.
  if (!isLoopbackHost(config.host)) throw new Error(`refusing to bind non-loopback host ${config.host}`);
  // Before any adapter starts a worker: an unsafe passphrase file refuses startup with nothing to undo.
  assertAuthFilesSafe(config.auth);
  // Which Hermes Agent this gateway fronts, before anything that follows its version is built.
  const hermes = options.hermes ?? (await locateHermes(config));
  log.info({ event: 'hermes_agent', state: hermes.state, version: hermes.release.version ?? null, supported: hermes.release.supported, python: hermes.python ?? null }, 'Hermes Agent located');
  // The native, jobs, guarded, memory and browser adapters are always part of the product; embedders and tests may add others.
  // Before the native adapter: its terminal records each owner's cwd there, and its file tools read it.
  const owners = options.owners ?? ownerRegistry(config, log);
  const native = nativeAdapter(config, log, owners, hermes.release, hermes);
  // Before the other adapters, so the workers they start while the gateway is composed (the graph
  // and Hermes tool servers) are counted too; what needs the composed gateway is read at scrape time.
  let composed: { gateway: Gateway; counters: { inflightRequests: number }; publicNames: ReadonlySet<string> } | undefined;
  const metrics = new GatewayMetrics({
    knownTool: (name) => composed !== undefined && (composed.gateway.catalog.has(name) || composed.publicNames.has(name)),
    inflightRequests: () => composed?.counters.inflightRequests ?? 0,
    inflightNativeCalls: () => composed?.gateway.owners.inflightNativeCalls ?? 0,
    liveWorkers: () => native.runtime.liveWorkerPids().length,
    jobCounts: () => jobs.jobCounts(),
    readiness: async () => (composed ? composed.gateway.readiness.check() : { components: {} }),
  });
  native.runtime.spawnObserver = (kind, readySeconds) => metrics.observeSpawn(kind, readySeconds);
  const jobs = jobsAdapter(native, log, options.now);
  const bridge = bridgeAdapter(config, log, hermes.release);
  const { hermes: hermesComponent, startup, skills, guarded, memory, browser, lsp, graph, hermesTools } = backendAdapters(config, hermes, native, log, options.policy);
  const gateway = await Gateway.create({ ...options, owners, adapters: [hermesComponent, startup, skills, native, jobs, guarded, memory, browser, lsp, graph, bridge, hermesTools, ...(options.adapters ?? [])] });
  const endpoint = createMcpEndpoint(gateway, (error) => log.warn({ event: 'mcp_rejected', reason: error.message }));
  // Authentication (public URL, credentials, OAuth) when configured; undefined leaves loopback use as it was.
  const auth = await createAuthEdge(config, log, options.now);
  const { app, lifecycle, counters } = createApp(gateway, endpoint, auth, metrics);
  composed = { gateway, counters, publicNames: new Set(gateway.publicToolList().map((t) => t.name)) };
  // The bridge profile has its own token and none of the gateway's authentication: with a public
  // URL, it is for the operator on this machine only, never reachable through the public name.
  if (auth && config.auth.publicUrls.length > 0) {
    const localOnly: MiddlewareHandler = (c, next) => (auth.isLocal(c.req.raw) ? next() : Promise.resolve(c.json({ error: 'FORBIDDEN', message: '/bridge is served on loopback only when HERMES_MCP_PUBLIC_URL is set' }, 403)));
    app.use('/bridge', localOnly);
    app.use('/bridge/*', localOnly);
  }
  app.route('/bridge', bridge.profile);
  bridge.attach({ draining: () => lifecycle.draining, counted: (owner, work) => gateway.owners.runLeased(owner, work) });
  // Long keep-alive (edge/keep-alive.ts); a drain ends each connection after its answer.
  const serverOptions = listenerTimeouts(config.limits);
  const server = await new Promise<ServerType & Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port, serverOptions }, () => resolve(s as ServerType & Server));
    s.once('error', reject);
  });
  // Calls are POSTs; a response counts until it is fully written (a streamed answer outlives its
  // handler). GET streams carry no call and would hold a drain open for nothing.
  let openPosts = 0;
  // Answers not yet sent: once draining, each closes its connection after it (a call in flight
  // answers, then its connection goes), so a client learns it from the answer, not from a reset.
  const unanswered = new Set<ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (lifecycle.draining) res.shouldKeepAlive = false;
    else {
      unanswered.add(res);
      res.once('close', () => unanswered.delete(res));
    }
    if (req.method !== 'POST') return;
    openPosts++;
    res.once('close', () => openPosts--);
  });
  const port = (server.address() as AddressInfo).port;
  const bridgeUrl = await bridge.listen();
  const host = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  log.info({ event: 'listening', host: config.host, port }, 'hermes-mcp-gateway listening');
  // Supervisors and scripts wait for this line; don't leave it in the log buffer.
  log.flush();
  let closed = false;
  return {
    gateway,
    hermes,
    native,
    jobs,
    memory,
    bridge,
    ...(bridgeUrl ? { bridgeUrl } : {}),
    graph,
    hermesTools,
    metrics,
    port,
    url: `http://${host}:${port}`,
    httpServer: server,
    async drain(timeoutMs) {
      lifecycle.draining = true;
      // The bridge's own MCP_PORT listener counts too: its tasks are this gateway's calls.
      const open = () => openPosts + bridge.openRequests();
      const outcome = (): DrainOutcome => ({ drained: open() === 0 && gateway.owners.inflightNativeCalls === 0, open_requests: open(), inflight_native_calls: gateway.owners.inflightNativeCalls });
      const deadline = Date.now() + timeoutMs;
      // Every answer from now on says Connection: close and ends its connection, the calls in flight
      // included; a connection still idle is closed with the listener, right after the drain. Not
      // here: a client reusing it at that moment would get a reset, where it now gets a 503.
      for (const res of unanswered) if (!res.headersSent) res.shouldKeepAlive = false;
      while (!outcome().drained && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      return outcome();
    },
    async close() {
      if (closed) return;
      closed = true;
      // The drain is over: nothing more is answered on an idle connection, so none waits out its keep-alive.
      server.closeIdleConnections();
      await endpoint.close();
      await gateway.close();
      auth?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets would hold close() open; end them.
        server.closeAllConnections();
      });
    },
  };
}
