import type { ToolDefinition } from '../../../core/tool-types.js';
import { locationsAt, positionSchema, READ_ONLY, type LspToolDeps } from '../query.js';

export function lspReferencesTool(deps: LspToolDeps): ToolDefinition {
  return {
    name: 'lsp_references',
    description: 'Every reference to the symbol at a 1-based line/character across the workspace: absolute paths with 1-based ranges. include_declaration (default true) also lists the declaration itself.',
    inputSchema: positionSchema({ include_declaration: { type: 'boolean', description: 'Also list the declaration (default true).' } }),
    annotations: { ...READ_ONLY, title: 'LSP find references' },
    handler: (args, ctx) => locationsAt(deps, 'references', args, ctx.signal),
  };
}
