import { randomUUID } from 'node:crypto';
import { Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { ErrorCode } from '../../../shared/errors.js';
import type { Limits } from '../../../shared/limits.js';
import { packageVersion } from '../../../shared/package-root.js';
import { errorOutcome } from '../../core/result.js';
import { compileArgumentValidator } from '../../core/catalog/catalog.js';
import { answer, callTool, type PipelineEntry, type Surface } from '../../core/pipeline.js';
import type { NormalizedToolResult, ToolDefinition } from '../../core/tool-types.js';

// The MCP server of hermes-mcp-lsp: the six LSP tools listed directly (Hermes' MCP client registers
// each listed tool itself), each call through the gateway's own tool pipeline (core/pipeline.ts:
// the catalog's ajv validator, error codes, redaction, output cap, JSON truncation receipt), then
// shaped for Hermes' client (forHermesClient). Only tools/list and tools/call; the rest of the
// protocol is the SDK's.
//
// One result is capped at lspStdioMaxOutputChars (or maxOutputChars, if smaller): Hermes 0.22.2
// persists an MCP result over 50,000 characters to a file and gives the model only a preview
// (tools/budget_config.py DEFAULT_MCP_RESULT_SIZE_CHARS, tools/tool_result_storage.py
// maybe_persist_tool_result); 0.19.0's budget was 100,000. Under that cap the model gets a large
// answer's truncation receipt whole, as JSON, on both.

const SERVER_INFO = { name: 'hermes-mcp-lsp', version: packageVersion() };
const INSTRUCTIONS =
  'Read-only language-server tools (diagnostics, hover, definition, references, document symbols, status) for files inside the allowed project roots. Positions are 1-based. Nothing here edits files.';

/** A fresh SDK server per connection (serveStdio asks for one), over one shared set of tools. */
export function lspServerFactory(tools: readonly ToolDefinition[], limits: Limits, log: Logger): () => Server {
  const entries = new Map<string, PipelineEntry>(tools.map((tool) => [tool.name, { tool, validate: compileArgumentValidator(tool) }]));
  const listed = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations })) as Tool[];
  // Results are normalised inline: this process has no thread pool of its own to spare.
  const surface: Surface = {
    onInternalError: (tool, e) => log.error({ event: 'tool_internal_error', tool, ...(e instanceof Error ? { err: e } : { reason: String(e) }) }),
    internalErrorMessage: (tool) => `${tool} failed inside hermes-mcp-lsp; see its stderr log for details`,
    maxChars: Math.min(limits.maxOutputChars, limits.lspStdioMaxOutputChars),
  };
  return () => {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
    server.setRequestHandler('tools/list', async () => ({ tools: listed }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name } = request.params;
      const entry = entries.get(name);
      const result = entry
        ? (await callTool(entry, request.params.arguments, surface, {
            context: () => ({
              // One client (the Hermes process that started this server); LSP tools keep nothing per owner.
              owner: { id: 'stdio:hermes', kind: 'legacy' },
              signal: ctx.mcpReq.signal,
              callId: randomUUID(),
              era: 'legacy',
              callNested: async () => errorOutcome(ErrorCode.UNKNOWN_TOOL, 'nested calls are not available here'),
            }),
          })).result
        : await answer(errorOutcome(ErrorCode.UNKNOWN_TOOL, `unknown tool "${name}"; tools/list shows the six LSP tools`), surface);
      return forHermesClient(result) as CallToolResult;
    });
    return server;
  };
}

/**
 * What Hermes' MCP client hands the model (0.19.0 tools/mcp_tool.py, 0.22.2
 * tools/mcp_tool_handlers.py _render_call_tool_result): for an error, the text of the content
 * blocks alone; for a success with structuredContent and no text, `{"result": <object>}`. A text
 * block beside it would make 0.19.0 hand the answer twice (`{"result": <text>, "structuredContent":
 * <object>}`, a capped one at twice the cap) and 0.22.2 hand the text alone, as a string
 * (`_content_dual_emits_structured` drops the structured copy). So a success carries its
 * structuredContent only (and no `_meta`, which 0.22.2 would pass on to the model), and an error
 * keeps its JSON text block (the stable code and message).
 */
export function forHermesClient(result: NormalizedToolResult): NormalizedToolResult {
  if (result.isError === true || result.structuredContent === undefined) return result;
  return { content: [], structuredContent: result.structuredContent };
}
