import type { ToolDefinition } from '../../../core/tool-types.js';
import { shapeSymbols } from '../shape.js';
import { fileSchema, ok, query, READ_ONLY, type LspToolDeps } from '../query.js';

export function lspDocumentSymbolsTool(deps: LspToolDeps): ToolDefinition {
  return {
    name: 'lsp_document_symbols',
    description: "The symbols a file declares (classes, functions, variables, ...) with their kinds and 1-based positions of their names, nested when the server gives a hierarchy.",
    inputSchema: fileSchema(),
    annotations: { ...READ_ONLY, title: 'LSP document symbols' },
    async handler(args, ctx) {
      const { path, answer } = await query(deps, 'documentSymbol', args, ctx.signal);
      return ok({ path, ...shapeSymbols(answer.result) });
    },
  };
}
