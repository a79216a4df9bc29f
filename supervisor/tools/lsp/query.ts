import type { LspOperation } from '../../../shared/worker-protocol/lsp.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { ToolDefinition, ToolOutcome } from '../../core/tool-types.js';
import type { LspWorkerHost, LspSuccess } from './host.js';
import { shapeLocations } from './shape.js';
import { resolveTarget } from './target.js';

// What the six read-only LSP tools (one folder each) share: their schemas and the query, the same
// for both faces (deferred tools in the gateway catalog, and the hermes-mcp-lsp stdio server). Nothing here edits: no rename, no code action,
// no formatting. Positions are 1-based; LSP's are 0-based, converted here and in shape.ts.
//
// A call, end to end:
//   1. the tool's folder: its schema; here: resolveTarget (target.ts) (every refusal, before anything starts), then query();
//   2. host.ts: LspWorkerHost.query() sends it to the one LSP worker (started on demand), with the budget;
//   3. workers/lsp-worker.ts: answer() takes the session for (server, workspace) and runs the operation
//      (diagnostics.ts for the pull/push verdict; session.ts is the server process and its documents);
//   4. back in the tool's folder: the raw LSP result is shaped (shape.ts) into the tool's answer.

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;

const PATH = { type: 'string', minLength: 1, description: 'Absolute path of a file inside the allowed roots (HERMES_MCP_ROOTS) and a trusted workspace (HERMES_MCP_LSP_TRUSTED_ROOTS).' };
const LINE = { type: 'integer', minimum: 1, description: '1-based line.' };
const CHARACTER = { type: 'integer', minimum: 1, description: '1-based column, in UTF-16 code units (as LSP counts; equal to characters outside astral-plane text).' };

export function fileSchema(): ToolDefinition['inputSchema'] {
  return { type: 'object', properties: { path: PATH }, required: ['path'], additionalProperties: false };
}

export function positionSchema(extra: Record<string, unknown> = {}): ToolDefinition['inputSchema'] {
  return { type: 'object', properties: { path: PATH, line: LINE, character: CHARACTER, ...extra }, required: ['path', 'line', 'character'], additionalProperties: false };
}

export interface LspToolDeps {
  config: GatewayConfig;
  host: LspWorkerHost;
  /** The scrubbed environment workers inherit; a server's is this plus the gateway's PATH. */
  childEnv: Record<string, string>;
}

export async function query(deps: LspToolDeps, op: LspOperation, args: Record<string, unknown>, signal: AbortSignal): Promise<{ path: string; answer: LspSuccess }> {
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

export function ok(structured: Record<string, unknown>): ToolOutcome {
  return { structured };
}

/** A position query answered with locations (definition, references): 1-based, counted. */
export async function locationsAt(deps: LspToolDeps, op: 'definition' | 'references', args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> {
  const { path, answer } = await query(deps, op, args, signal);
  const locations = shapeLocations(answer.result);
  return ok({ path, line: args.line, character: args.character, count: locations.length, locations });
}
