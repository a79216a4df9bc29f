import { serve, type ServerType } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import { shuttingDown } from '../mcp/endpoint.js';
import { packageVersion } from '../../../shared/package-root.js';
import type { GatewayConfig } from '../../platform/config.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import { listenerTimeouts } from '../edge/keep-alive.js';
import { bridgeProfileApp } from './profile.js';
import { AgentRegistry, bridgeTools, CapabilityCache, gatewayAgentTools, resolveBridgeSettings, TaskStore, type BridgeState } from '../../tools/agent-tasks/index.js';
import { monotonicMs } from '../../../shared/clock.js';

// The hermes-mcp-bridge adapter: that bridge's five tools and the gateway's hermes_cancel as
// deferred catalog tools (source `agents`), and that bridge's HTTP surface, with its five tools
// only, as a drop-in profile (/bridge/mcp, /bridge/health on the gateway port; /mcp, /health on
// MCP_PORT when its .env sets one). Configured by HERMES_MCP_BRIDGE_ENV,
// resolved once at startup like the rest of the frozen catalog (the registry and the token reload
// on their own). The bridge is optional for the product, so it adds no /readyz component (whose
// failure would hold readiness at 503); /readyz reports it beside readiness as `bridge`.

/** What the server lends the bridge once the gateway exists: its shutdown state and its in-flight accounting. */
export interface BridgeHost {
  draining(): boolean;
  /** Runs a lease-holding call counted where drain looks (gateway.owners.runLeased). */
  counted<T>(ownerId: string, work: () => Promise<T>): Promise<T>;
}

export interface BridgeAdapter extends Adapter {
  state: BridgeState;
  /** The profile app, mounted by the server at /bridge. */
  profile: Hono;
  /**
   * Starts the MCP_PORT listener when configured; resolves to its URL. Never rejects: the bridge is
   * optional, so a port it cannot bind (say, the old bridge still holds it) is logged and reported
   * as `listen_error` in /readyz's `bridge`, and the gateway serves on without it.
   */
  listen(): Promise<string | undefined>;
  attach(host: BridgeHost): void;
  /** POSTs still open on the MCP_PORT listener (those on /bridge count with the gateway port's). */
  openRequests(): number;
}

const POLL_MS = 25;

/** `release`: the Hermes Agent the gateway fronts (its API server's behaviour; the newest the gateway knows by default). */
export function bridgeAdapter(config: GatewayConfig, log: Logger, release: HermesRelease = new HermesRelease(undefined)): BridgeAdapter {
  const state = bridgeState(config, log, release);
  // The profile serves the bridge's five; the catalog has hermes_cancel besides.
  const tools = bridgeTools(state);
  const catalogTools = [...tools, ...gatewayAgentTools(state)];
  let host: BridgeHost = { draining: () => false, counted: (_owner, work) => work() };
  let closing = false;
  let running = 0; // tool calls of either mount still running
  let ownOpen = 0;
  const { app: profile, audit } = bridgeProfileApp({
    state,
    tools,
    limits: config.limits,
    version: packageVersion(),
    log,
    refusing: () => closing || host.draining(),
    refusal: () => shuttingDown(config.limits.shutdownGraceSeconds),
    track: async (tool, ownerId, work) => {
      running++;
      try {
        return tool.holdsLease ? await host.counted(ownerId, work) : await work();
      } finally {
        running--;
      }
    },
  });
  let own: ServerType | undefined;
  let listenError: string | undefined;

  return {
    name: 'agents',
    state,
    profile,
    source: { name: 'agents', tools: () => catalogTools, configured: state.kind === 'configured' },
    readyFacts: () => ({ bridge: bridgeFacts(state, listenError) }),
    attach(next) {
      host = next;
    },
    openRequests: () => ownOpen,
    async listen() {
      const port = state.kind === 'configured' ? state.service.settings.mcpPort : undefined;
      if (port === undefined) return undefined;
      // Loopback only, like the bridge: its tunnel or proxy is the sole ingress.
      let server: ServerType | undefined;
      try {
        server = await new Promise<ServerType>((resolve, reject) => {
          const s = serve({ fetch: profile.fetch, hostname: '127.0.0.1', port, serverOptions: listenerTimeouts(config.limits) }, () => resolve(s));
          s.once('error', reject);
        });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        listenError = `cannot listen on 127.0.0.1:${port} (MCP_PORT): ${code ?? (e as Error).message}${code === 'EADDRINUSE' ? '; is the old hermes-mcp-bridge still running?' : ''}`;
        log.error({ event: 'bridge_listen_failed', port, reason: listenError }, listenError);
        return undefined;
      }
      own = server;
      // Calls are POSTs; one counts until its response is written (drain and close wait for it).
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        if (req.method !== 'POST') return;
        ownOpen++;
        res.once('close', () => ownOpen--);
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      log.info({ event: 'bridge_listening', url }, 'hermes-mcp-bridge profile listening');
      return url;
    },
    async close() {
      // New requests are refused from here on; running tasks get up to shutdownGraceSeconds to
      // answer before any connection is cut.
      closing = true;
      const server = own as (ServerType & { closeIdleConnections?: () => void; closeAllConnections?: () => void }) | undefined;
      const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
      server?.closeIdleConnections?.();
      const deadline = monotonicMs() + config.limits.shutdownGraceSeconds * 1000;
      while ((running > 0 || ownOpen > 0) && monotonicMs() < deadline) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      server?.closeAllConnections?.();
      await closed;
      audit?.close();
    },
  };
}

/** The profile's state: not configured, configured (its agent registry, task store and capabilities), or invalid with the reason. */
function bridgeState(config: GatewayConfig, log: Logger, release: HermesRelease): BridgeState {
  if (!config.bridgeEnvFile) {
    return { kind: 'not_configured', reason: 'the Hermes agent-task tools are not configured: set HERMES_MCP_BRIDGE_ENV to a hermes-mcp-bridge .env file and restart the gateway' };
  }
  const resolution = resolveBridgeSettings(config.bridgeEnvFile, config.hermesHome, config.userHome);
  if (resolution.status !== 'configured') {
    log.error({ event: 'bridge_invalid', reason: resolution.reason }, resolution.reason);
    return { kind: 'invalid', reason: resolution.reason };
  }
  const { settings } = resolution;
  const state: BridgeState = {
    kind: 'configured',
    service: {
      settings,
      registry: new AgentRegistry(settings, config.inheritedEnvironment),
      store: new TaskStore(settings.tasksDir, config.limits.bridgeResultMaxBytes),
      limits: config.limits,
      capabilities: new CapabilityCache(config.limits.bridgeCapabilitiesCacheSeconds),
      release,
    },
  };
  log.info({ event: 'bridge_configured', env_file: settings.envFile, tasks_dir: settings.tasksDir, agents_file: settings.agentsFile, mcp_port: settings.mcpPort }, 'hermes-mcp-bridge profile configured');
  return state;
}

/** /readyz's `bridge` fact. */
function bridgeFacts(state: BridgeState, listenError: string | undefined): Record<string, unknown> {
  if (state.kind !== 'configured') return { status: state.kind, reason: state.reason };
  const view = state.service.registry.current();
  return {
    status: 'configured',
    agents: view.agents.length,
    default_agent: view.defaultName,
    ...(view.degraded ? { degraded: view.degraded } : {}),
    ...(view.error ? { registry_error: view.error } : {}),
    ...(listenError ? { listen_error: listenError } : {}),
  };
}
