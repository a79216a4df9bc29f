import type { ToolDefinition } from '../../../core/tool-types.js';
import { shapeHover } from '../shape.js';
import { ok, positionSchema, query, READ_ONLY, type LspToolDeps } from '../query.js';

export function lspHoverTool(deps: LspToolDeps): ToolDefinition {
  return {
    name: 'lsp_hover',
    description: 'Type and documentation of the symbol at a 1-based line/character of a file, as the language server shows it on hover (markdown or plain text).',
    inputSchema: positionSchema(),
    annotations: { ...READ_ONLY, title: 'LSP hover' },
    async handler(args, ctx) {
      const { path, answer } = await query(deps, 'hover', args, ctx.signal);
      return ok({ path, line: args.line, character: args.character, ...shapeHover(answer.result) });
    },
  };
}
