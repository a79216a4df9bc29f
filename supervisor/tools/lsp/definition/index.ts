import type { ToolDefinition } from '../../../core/tool-types.js';
import { locationsAt, positionSchema, READ_ONLY, type LspToolDeps } from '../query.js';

export function lspDefinitionTool(deps: LspToolDeps): ToolDefinition {
  return {
    name: 'lsp_definition',
    description: 'Where the symbol at a 1-based line/character is defined: absolute paths with 1-based line/character ranges.',
    inputSchema: positionSchema(),
    annotations: { ...READ_ONLY, title: 'LSP go to definition' },
    handler: (args, ctx) => locationsAt(deps, 'definition', args, ctx.signal),
  };
}
