import type { ToolDefinition } from '../../../core/tool-types.js';
import { shapeDiagnostics } from '../shape.js';
import { fileSchema, ok, query, READ_ONLY, type LspToolDeps } from '../query.js';

export function lspDiagnosticsTool(deps: LspToolDeps): ToolDefinition {
  return {
    name: 'lsp_diagnostics',
    description:
      "Errors and warnings a language server reports for one file (TypeScript/JavaScript, Python, or configured servers), from the file's current content on disk. A server that does not answer within the budget is an LSP_TIMEOUT error, never an empty list.",
    inputSchema: fileSchema(),
    annotations: { ...READ_ONLY, title: 'LSP diagnostics' },
    async handler(args, ctx) {
      const { path, answer } = await query(deps, 'diagnostics', args, ctx.signal);
      return ok({ path, server: answer.serverInfo?.name ?? null, model: answer.diagnosticModel ?? null, ...shapeDiagnostics(answer.result) });
    },
  };
}
