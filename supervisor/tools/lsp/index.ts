import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { ProbeResult } from '../../platform/health/readiness.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { LspWorkerHost } from './host.js';
import { findProgram } from '../../platform/settings/lsp-servers.js';
import { lspDefinitionTool } from './definition/index.js';
import { lspDiagnosticsTool } from './diagnostics/index.js';
import { lspDocumentSymbolsTool } from './document-symbols/index.js';
import { lspHoverTool } from './hover/index.js';
import type { LspToolDeps } from './query.js';
import { lspReferencesTool } from './references/index.js';
import { lspStatus, lspStatusTool } from './status/index.js';

// The read-only LSP adapter. Its tools are the same six ToolDefinitions whichever face serves them:
// deferred tools of the gateway catalog (reached through tool_call), or the hermes-mcp-lsp stdio
// MCP server (bin/lsp.ts) that Hermes Agent connects to as one of its own mcp_servers. Both run
// their language servers in one LSP worker under the workers' process isolation.
// /readyz `lsp`: not_configured without a trusted root, missing when no configured server is
// installed, degraded and not ready when the LSP worker cannot start or died soon after starting
// (until a call starts one again), ready otherwise (degraded when only some servers are
// installed). The probe reads configuration, PATH and the worker's last report: it never waits on
// the worker or on a call in flight.

function lspTools(deps: LspToolDeps): ToolDefinition[] {
  return [lspDiagnosticsTool(deps), lspHoverTool(deps), lspDefinitionTool(deps), lspReferencesTool(deps), lspDocumentSymbolsTool(deps), lspStatusTool(deps)];
}

export interface LspService {
  tools: ToolDefinition[];
  host: LspWorkerHost;
  probe(): ProbeResult;
  close(): Promise<void>;
}

export function lspService(config: GatewayConfig, runtime: WorkerRuntime): LspService {
  const host = new LspWorkerHost(runtime);
  const tools = lspTools({ config, host, childEnv: runtime.childEnv });
  return {
    tools,
    host,
    probe: () => lspProbe(config, host),
    close: () => host.close(),
  };
}

function lspProbe(config: GatewayConfig, host: LspWorkerHost): ProbeResult {
  const { lsp } = config;
  const installed = lsp.servers.filter((s) => findProgram(s.command[0]!, lsp.searchPath) !== undefined);
  const missing = lsp.servers.filter((s) => !installed.includes(s));
  const details = { ...lspStatus({ config, host }) };
  const optional = 'or set HERMES_MCP_OPTIONAL_COMPONENTS=lsp to run without the LSP tools';
  if (lsp.trustedRoots.length === 0) {
    return {
      ready: false,
      status: 'not_configured',
      reason: 'no trusted workspace: HERMES_MCP_LSP_TRUSTED_ROOTS is empty, so no language server may start',
      action: `list the project roots whose language servers may run in HERMES_MCP_LSP_TRUSTED_ROOTS (colon-separated), ${optional}`,
      details,
    };
  }
  if (installed.length === 0) {
    return {
      ready: false,
      status: 'missing',
      reason: `no configured language server is installed on the gateway's PATH (${lsp.servers.map((s) => s.command[0]).join(', ')})`,
      action: `install one yourself (the gateway never installs anything): ${missing.map((s) => `\`${s.install}\``).join(' or ')}, ${optional}`,
      details,
    };
  }
  if (host.failing) {
    return {
      ready: false,
      status: 'degraded',
      reason: `the LSP worker is failing: ${host.lastFailure ?? 'unknown failure'}`,
      action: `the next LSP call starts it again; if it keeps failing, see the worker_failed entries of the log, ${optional}`,
      details,
    };
  }
  return {
    ready: true,
    status: missing.length > 0 ? 'degraded' : 'ok',
    ...(missing.length > 0 ? { reason: `not installed: ${missing.map((s) => `${s.name} (\`${s.install}\`)`).join(', ')}` } : {}),
    details,
  };
}

export interface LspAdapter extends Adapter {
  service: LspService;
}

/** The gateway face: deferred tools, the /readyz component and worker shutdown with the gateway. */
export function lspAdapter(config: GatewayConfig, runtime: WorkerRuntime, log: Logger): LspAdapter {
  const service = lspService(config, runtime);
  log.info(
    { event: 'lsp_configured', trusted_roots: config.lsp.trustedRoots, servers: config.lsp.servers.map((s) => s.name) },
    config.lsp.trustedRoots.length > 0 ? 'LSP tools configured' : 'LSP tools: no trusted workspace (HERMES_MCP_LSP_TRUSTED_ROOTS)',
  );
  return {
    name: 'lsp',
    service,
    source: { name: 'lsp', tools: () => service.tools, configured: config.lsp.trustedRoots.length > 0 },
    readiness: [{ name: 'lsp', probe: () => service.probe() }],
    health: () => ({ lsp_worker: service.host.workerPid !== undefined, lsp_servers_running: service.host.running.length }),
    close: () => service.close(),
  };
}

// The LSP tools as a stdio MCP server for Hermes Agent's own MCP client (bin/lsp.ts, hermes-mcp-lsp).
export { lspServerFactory } from './stdio-server.js';
