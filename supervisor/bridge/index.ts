import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Adapter } from '../adapter.js';
import { packageVersion } from '../../shared/package-root.js';
import type { GatewayConfig } from '../config.js';
import { bridgeProfileApp } from './profile.js';
import { AgentRegistry } from './registry.js';
import { resolveBridgeSettings } from './settings.js';
import { TaskStore } from './tasks.js';
import { bridgeTools, type BridgeState } from './tools.js';

// The hermes-mcp-bridge adapter: that bridge's five tools as deferred catalog tools (source
// `agents`), and its HTTP surface as a drop-in profile (/bridge/mcp, /bridge/health on the gateway
// port; /mcp, /health on MCP_PORT when its .env sets one). Configured by HERMES_MCP_BRIDGE_ENV,
// resolved once at startup like the rest of the frozen catalog (the registry and the token reload
// on their own). The bridge is optional for the product, so it adds no /readyz component (whose
// failure would hold readiness at 503); /readyz reports it beside readiness as `bridge`.

export interface BridgeAdapter extends Adapter {
  state: BridgeState;
  /** The profile app, mounted by the server at /bridge. */
  profile: Hono;
  /** Starts the MCP_PORT listener when configured; resolves to its URL. */
  listen(): Promise<string | undefined>;
}

export function bridgeAdapter(config: GatewayConfig, log: Logger): BridgeAdapter {
  let state: BridgeState;
  if (!config.bridgeEnvFile) {
    state = { kind: 'not_configured', reason: 'the Hermes agent-task tools are not configured: set HERMES_MCP_BRIDGE_ENV to a hermes-mcp-bridge .env file and restart the gateway' };
  } else {
    const resolution = resolveBridgeSettings(config.bridgeEnvFile, config.hermesHome, config.userHome);
    if (resolution.status === 'configured') {
      const { settings } = resolution;
      state = {
        kind: 'configured',
        service: { settings, registry: new AgentRegistry(settings, config.inheritedEnvironment), store: new TaskStore(settings.tasksDir, config.limits.bridgeResultMaxBytes), limits: config.limits },
      };
      log.info({ event: 'bridge_configured', env_file: settings.envFile, tasks_dir: settings.tasksDir, agents_file: settings.agentsFile, mcp_port: settings.mcpPort }, 'hermes-mcp-bridge profile configured');
    } else {
      state = { kind: 'invalid', reason: resolution.reason };
      log.error({ event: 'bridge_invalid', reason: resolution.reason }, resolution.reason);
    }
  }
  const tools = bridgeTools(state);
  const { app: profile, audit } = bridgeProfileApp({ state, tools, limits: config.limits, version: packageVersion(), log });
  let own: ServerType | undefined;

  return {
    name: 'agents',
    state,
    profile,
    source: { name: 'agents', tools: () => tools },
    readyFacts: () => {
      if (state.kind !== 'configured') return { bridge: { status: state.kind, reason: state.reason } };
      const view = state.service.registry.current();
      return {
        bridge: {
          status: 'configured',
          agents: view.agents.length,
          default_agent: view.defaultName,
          ...(view.degraded ? { degraded: view.degraded } : {}),
          ...(view.error ? { registry_error: view.error } : {}),
        },
      };
    },
    async listen() {
      const port = state.kind === 'configured' ? state.service.settings.mcpPort : undefined;
      if (port === undefined) return undefined;
      // Loopback only, like the bridge: its tunnel or proxy is the sole ingress.
      own = await new Promise<ServerType>((resolve, reject) => {
        const s = serve({ fetch: profile.fetch, hostname: '127.0.0.1', port }, () => resolve(s));
        s.once('error', reject);
      });
      const url = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
      log.info({ event: 'bridge_listening', url }, 'hermes-mcp-bridge profile listening');
      return url;
    },
    async close() {
      if (own) {
        const server = own;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        });
      }
      audit?.close();
    },
  };
}
