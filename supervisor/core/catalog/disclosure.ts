import type { Limits } from '../../../shared/limits.js';
import type { ToolDefinition } from '../tool-types.js';
import type { Catalog, CatalogEntry } from './catalog.js';
import { Bm25Index, searchDocument } from './search.js';
import { loadSearchKeywords } from './search-keywords.js';

// The discovery tools (progressive disclosure of the deferred catalog). Their public shapes are
// those of the original Python gateway, so existing clients and prompts keep working:
// search -> describe -> call exactly one tool.
// tool_search and tool_describe are built here, over the frozen catalog; tool_call runs nothing
// itself, and the Dispatcher (core/dispatch.ts) handles it: it runs the one deferred call named.

export const DISCOVERY_TOOL_NAMES = ['tool_search', 'tool_describe', 'tool_call'] as const;

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;

function requiredOf(entry: CatalogEntry): string[] {
  const req = entry.tool.inputSchema.required;
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === 'string') : [];
}

function shortDescription(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 3) + '...';
}

/** What the catalog holds, as tool_search names it: Hermes' web, vision and image tools only when its tool server serves them here. */
function areasOf(catalog: Catalog): string[] {
  const has = (...names: string[]) => names.some((n) => catalog.has(n));
  return [
    'native file/terminal/code execution',
    'background jobs',
    'browser',
    ...(has('web_search', 'web_extract') ? ['web'] : []),
    ...(has('vision_analyze', 'image_generate', 'video_analyze') ? ['vision and images'] : []),
    'memory',
    'code graph',
    'LSP',
    'guarded Hermes capabilities',
  ];
}

/** tool_search and tool_describe. */
export function discoveryTools(options: { catalog: Catalog; limits: Limits }): ToolDefinition[] {
  const { catalog, limits } = options;
  const searchable = catalog.all();
  const keywords = loadSearchKeywords();
  const index = new Bm25Index(searchable.map((e) => searchDocument(e.tool, keywords.get(e.tool.name), e.configured)));
  const byName = new Map(searchable.map((e) => [e.tool.name, e]));

  const toolSearch: ToolDefinition = {
    name: 'tool_search',
    description:
      `Search the gateway catalog of deferred tools (${areasOf(catalog).join(', ')}) by keywords or exact tool name. Returns matching names with short descriptions and required parameters; then use tool_describe for the full schema and tool_call to run one.`,
    inputSchema: {
      type: 'object',
      properties: {
        queries: {
          type: 'array',
          items: { type: 'string', minLength: 1, pattern: '\\S' },
          minItems: 1,
          maxItems: limits.searchMaxQueries,
          description: 'Keyword queries or exact tool names.',
        },
        limit: { type: 'integer', minimum: 1, maximum: limits.searchMaxLimit, default: limits.searchDefaultLimit, description: 'Matches per query.' },
      },
      required: ['queries'],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
    async handler(args) {
      const queries = args.queries as string[];
      const limit = (args.limit as number | undefined) ?? limits.searchDefaultLimit;
      const results = queries.map((query) => ({ query, matches: index.search(query, limit) }));
      const tools: Record<string, { source: string; description: string; required: string[] }> = {};
      for (const { matches } of results) {
        for (const name of matches) {
          const e = byName.get(name)!;
          tools[name] = { source: e.source, description: shortDescription(e.tool.description, limits.searchDescriptionMaxChars), required: requiredOf(e) };
        }
      }
      return { structured: { total_available: index.size, results, tools } };
    },
  };

  const toolDescribe: ToolDefinition = {
    name: 'tool_describe',
    description: 'Return the authoritative description and JSON input schema of up to ten catalogued tools by exact name. Unknown names are listed under not_found.',
    inputSchema: {
      type: 'object',
      properties: {
        names: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: limits.describeMaxNames },
      },
      required: ['names'],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
    async handler(args) {
      const tools: Record<string, { description: string; parameters: unknown; source: string; annotations: unknown }> = {};
      const notFound: string[] = [];
      for (const name of args.names as string[]) {
        const e = byName.get(name);
        if (e) tools[name] = { description: e.tool.description, parameters: e.tool.inputSchema, source: e.source, annotations: e.tool.annotations };
        else if (!notFound.includes(name)) notFound.push(name);
      }
      return { structured: { tools, not_found: notFound } };
    },
  };

  return [toolSearch, toolDescribe];
}
