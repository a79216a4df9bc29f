import { stat } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { LspLaunch } from '../../../shared/worker-protocol/lsp.js';
import type { GatewayConfig, LspConfig } from '../../platform/config.js';
import { isInside, realRoots, resolveInsideRoots } from '../../platform/roots.js';
import { findProgram, languageIdFor, projectWorkspace, serverForFile } from '../../platform/settings/lsp-servers.js';

// The policy: everything a query needs, decided before anything starts, in this order: the path is
// an existing regular file inside HERMES_MCP_ROOTS (realpath: `..`, symlinks and relative paths
// that leave a root are refused), a configured server handles its extension, its workspace is
// trusted, and the server's program is installed. Each refusal has its stable code; nothing is
// installed.

export interface LspTarget {
  /** The file's real path. */
  file: string;
  /**
   * The workspace the server runs in: the nearest project directory above the file (the server's
   * root markers, else `.git`), never above the deeper of its trusted root and its HERMES_MCP_ROOTS
   * entry (which is the workspace when no marker is found).
   */
  root: string;
  languageId: string;
  launch: LspLaunch;
}

/** The deepest of `roots` that contains `real` (roots already real paths). */
function deepestContaining(real: string, roots: readonly string[]): string | undefined {
  return roots.filter((r) => isInside(real, r)).sort((a, b) => b.length - a.length)[0];
}

export async function resolveTarget(
  path: string,
  options: { roots: readonly string[]; lsp: LspConfig; childEnv: Record<string, string>; maxFileBytes: number },
): Promise<LspTarget> {
  const file = await resolveInsideRoots(path, options.roots);
  const info = await stat(file);
  if (!info.isFile()) throw new GatewayError(ErrorCode.FILE_NOT_REGULAR, `not a regular file: ${path}`);
  if (info.size > options.maxFileBytes) {
    throw new GatewayError(ErrorCode.FILE_TOO_LARGE, `${path} is ${info.size} bytes; language servers get files up to ${options.maxFileBytes} bytes (HERMES_MCP_LSP_MAX_FILE_BYTES)`);
  }
  const { lsp } = options;
  const server = serverForFile(lsp.servers, file);
  if (!server) {
    const known = [...new Set(lsp.servers.flatMap((s) => s.extensions))].join(' ');
    throw new GatewayError(ErrorCode.LSP_NO_SERVER_FOR_FILE, `no language server is configured for ${path} (configured extensions: ${known}); add one in the HERMES_MCP_LSP_SERVERS file`);
  }
  const trusted = deepestContaining(file, await realRoots(lsp.trustedRoots));
  if (!trusted) {
    throw new GatewayError(
      ErrorCode.LSP_WORKSPACE_UNTRUSTED,
      `${path} is not inside a trusted workspace: a language server runs the project's own configuration, so it starts only in a root listed in HERMES_MCP_LSP_TRUSTED_ROOTS`,
      { variable: 'HERMES_MCP_LSP_TRUSTED_ROOTS' },
    );
  }
  const allowed = deepestContaining(file, await realRoots(options.roots))!;
  const root = projectWorkspace(server, file, allowed.length > trusted.length ? allowed : trusted);
  const program = findProgram(server.command[0]!, lsp.searchPath);
  if (!program) {
    throw new GatewayError(
      ErrorCode.LSP_SERVER_NOT_INSTALLED,
      `the ${server.name} language server (${server.command[0]}) is not on PATH (the gateway's, or for hermes-mcp-lsp the env PATH of its mcp_servers entry in Hermes' config.yaml); nothing is ever installed: install it with \`${server.install}\`, then restart the gateway (or Hermes' MCP server) if PATH changed`,
      { server: server.name, program: server.command[0], install: server.install },
    );
  }
  return {
    file,
    root,
    languageId: languageIdFor(server, file),
    launch: {
      name: server.name,
      argv: [program, ...server.command.slice(1)],
      // The gateway's PATH, where the program was found: a server started through `#!/usr/bin/env node` finds its interpreter the same way.
      env: { ...options.childEnv, PATH: lsp.searchPath },
      ...(server.initializationOptions !== undefined ? { initializationOptions: server.initializationOptions } : {}),
    },
  };
}
