import { findProgram } from '../../../platform/settings/lsp-servers.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { ok, READ_ONLY, type LspToolDeps } from '../query.js';

export function lspStatusTool(deps: Pick<LspToolDeps, 'config' | 'host'>): ToolDefinition {
  return {
    name: 'lsp_status',
    description: 'The configured language servers (installed on PATH or not, with the command that would install them), the trusted workspace roots, and the servers running now with their workspaces.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { ...READ_ONLY, title: 'LSP status' },
    async handler() {
      return ok(lspStatus(deps));
    },
  };
}

export function lspStatus(deps: Pick<LspToolDeps, 'config' | 'host'>): Record<string, unknown> {
  const { lsp } = deps.config;
  const running = deps.host.running;
  const now = Date.now();
  return {
    trusted_roots: lsp.trustedRoots,
    servers: lsp.servers.map((s) => {
      const program = findProgram(s.command[0]!, lsp.searchPath);
      return {
        name: s.name,
        command: s.command,
        extensions: s.extensions,
        installed: program !== undefined,
        program: program ?? null,
        ...(program ? {} : { install: s.install }),
        running: running
          .filter((r) => r.server === s.name)
          .map((r) => ({ root: r.root, pid: r.pid, state: r.state, started_at: new Date(r.startedAt).toISOString(), idle_seconds: Math.floor((now - r.lastUsedAt) / 1000) })),
      };
    }),
    worker: { running: deps.host.workerPid !== undefined, pid: deps.host.workerPid ?? null, starts: deps.host.starts, ...(deps.host.lastFailure ? { last_failure: deps.host.lastFailure } : {}) },
  };
}
