import { stat } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { LspLaunch, LspOperation } from '../../../shared/worker-protocol/lsp.js';
import type { GatewayConfig, LspConfig } from '../../platform/config.js';
import { isInside, realRoots, resolveInsideRoots } from '../../platform/roots.js';
import type { ToolDefinition, ToolOutcome } from '../../core/tool-types.js';
import { findProgram, languageIdFor, projectWorkspace, serverForFile } from '../../platform/settings/lsp-servers.js';
import type { LspWorkerHost, LspSuccess } from './host.js';
import { shapeDiagnostics, shapeHover, shapeLocations, shapeSymbols } from './shape.js';

// The six read-only LSP tools, the same definitions for both faces (deferred tools in the gateway
// catalog, and the hermes-mcp-lsp stdio server). Nothing here edits: no rename, no code action,
// no formatting. Positions are 1-based; LSP's are 0-based, converted here and in shape.ts.
//
// A call, end to end:
//   1. here: the tool's schema, then resolveTarget (every refusal, before anything starts), then query();
//   2. host.ts: LspWorkerHost.query() sends it to the one LSP worker (started on demand), with the budget;
//   3. workers/lsp-worker.ts: answer() takes the session for (server, workspace) and runs the operation
//      (diagnostics.ts for the pull/push verdict; session.ts is the server process and its documents);
//   4. back here: the raw LSP result is shaped (shape.ts) into the tool's answer.

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;

const PATH = { type: 'string', minLength: 1, description: 'Absolute path of a file inside the allowed roots (HERMES_MCP_ROOTS) and a trusted workspace (HERMES_MCP_LSP_TRUSTED_ROOTS).' };
const LINE = { type: 'integer', minimum: 1, description: '1-based line.' };
const CHARACTER = { type: 'integer', minimum: 1, description: '1-based column, in UTF-16 code units (as LSP counts; equal to characters outside astral-plane text).' };

function fileSchema(): ToolDefinition['inputSchema'] {
  return { type: 'object', properties: { path: PATH }, required: ['path'], additionalProperties: false };
}

function positionSchema(extra: Record<string, unknown> = {}): ToolDefinition['inputSchema'] {
  return { type: 'object', properties: { path: PATH, line: LINE, character: CHARACTER, ...extra }, required: ['path', 'line', 'character'], additionalProperties: false };
}

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

export interface LspToolDeps {
  config: GatewayConfig;
  host: LspWorkerHost;
  /** The scrubbed environment workers inherit; a server's is this plus the gateway's PATH. */
  childEnv: Record<string, string>;
}

async function query(deps: LspToolDeps, op: LspOperation, args: Record<string, unknown>, signal: AbortSignal): Promise<{ path: string; answer: LspSuccess }> {
  const { config } = deps;
  const target = await resolveTarget(args.path as string, { roots: config.roots, lsp: config.lsp, childEnv: deps.childEnv, maxFileBytes: config.limits.lspMaxFileBytes });
  const position = typeof args.line === 'number' ? { position: { line: args.line - 1, character: (args.character as number) - 1 } } : {};
  const answer = await deps.host.query(
    {
      launch: target.launch,
      root: target.root,
      file: target.file,
      languageId: target.languageId,
      op,
      ...position,
      ...(typeof args.include_declaration === 'boolean' ? { includeDeclaration: args.include_declaration } : {}),
      budgetMs: config.limits.lspCallTimeoutSeconds * 1000,
      idleMs: config.limits.lspServerIdleSeconds * 1000,
      settleMs: config.limits.lspDiagnosticsSettleMs,
    },
    signal,
  );
  return { path: target.file, answer };
}

function ok(structured: Record<string, unknown>): ToolOutcome {
  return { structured };
}

/** A position query answered with locations (definition, references): 1-based, counted. */
async function locationsAt(deps: LspToolDeps, op: 'definition' | 'references', args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> {
  const { path, answer } = await query(deps, op, args, signal);
  const locations = shapeLocations(answer.result);
  return ok({ path, line: args.line, character: args.character, count: locations.length, locations });
}

export function lspTools(deps: LspToolDeps): ToolDefinition[] {
  return [
    {
      name: 'lsp_diagnostics',
      description:
        "Errors and warnings a language server reports for one file (TypeScript/JavaScript, Python, or configured servers), from the file's current content on disk. A server that does not answer within the budget is an LSP_TIMEOUT error, never an empty list.",
      inputSchema: fileSchema(),
      annotations: { ...READ_ONLY, title: 'LSP diagnostics' },
      async handler(args, ctx) {
        const { path, answer } = await query(deps, 'diagnostics', args, ctx.signal);
        return ok({ path, server: answer.serverInfo?.name ?? null, model: answer.diagnosticModel ?? null, ...shapeDiagnostics(answer.result) });
      },
    },
    {
      name: 'lsp_hover',
      description: 'Type and documentation of the symbol at a 1-based line/character of a file, as the language server shows it on hover (markdown or plain text).',
      inputSchema: positionSchema(),
      annotations: { ...READ_ONLY, title: 'LSP hover' },
      async handler(args, ctx) {
        const { path, answer } = await query(deps, 'hover', args, ctx.signal);
        return ok({ path, line: args.line, character: args.character, ...shapeHover(answer.result) });
      },
    },
    {
      name: 'lsp_definition',
      description: 'Where the symbol at a 1-based line/character is defined: absolute paths with 1-based line/character ranges.',
      inputSchema: positionSchema(),
      annotations: { ...READ_ONLY, title: 'LSP go to definition' },
      handler: (args, ctx) => locationsAt(deps, 'definition', args, ctx.signal),
    },
    {
      name: 'lsp_references',
      description: 'Every reference to the symbol at a 1-based line/character across the workspace: absolute paths with 1-based ranges. include_declaration (default true) also lists the declaration itself.',
      inputSchema: positionSchema({ include_declaration: { type: 'boolean', description: 'Also list the declaration (default true).' } }),
      annotations: { ...READ_ONLY, title: 'LSP find references' },
      handler: (args, ctx) => locationsAt(deps, 'references', args, ctx.signal),
    },
    {
      name: 'lsp_document_symbols',
      description: "The symbols a file declares (classes, functions, variables, ...) with their kinds and 1-based positions of their names, nested when the server gives a hierarchy.",
      inputSchema: fileSchema(),
      annotations: { ...READ_ONLY, title: 'LSP document symbols' },
      async handler(args, ctx) {
        const { path, answer } = await query(deps, 'documentSymbol', args, ctx.signal);
        return ok({ path, ...shapeSymbols(answer.result) });
      },
    },
    {
      name: 'lsp_status',
      description: 'The configured language servers (installed on PATH or not, with the command that would install them), the trusted workspace roots, and the servers running now with their workspaces.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { ...READ_ONLY, title: 'LSP status' },
      async handler() {
        return ok(lspStatus(deps));
      },
    },
  ];
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
