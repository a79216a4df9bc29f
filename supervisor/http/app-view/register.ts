import { ResourceNotFoundError, type Server, type ServerCapabilities, type Tool } from '@modelcontextprotocol/server';
import { TOOL_CALL_VIEW_META, VIEW_EXTENSION_ID, VIEW_LISTING, VIEW_URI, viewContents } from './resource.js';

// How the MCP server serves the result view: one resource in resources/list and resources/read
// (both eras; the SDK answers server/discover from the capabilities below), and tool_call's
// `_meta` in tools/list. Nothing else changes: no tool is added, and a tool_call result is the
// same for every client, whether it renders the view or not.

/** The capabilities the view adds: a static resource list and the MCP Apps extension. */
export const VIEW_CAPABILITIES: Pick<ServerCapabilities, 'resources' | 'extensions'> = {
  resources: { listChanged: false },
  extensions: { [VIEW_EXTENSION_ID]: {} },
};

/** The list is frozen for the life of the process and identical for every caller, like tools/list. */
export const VIEW_CACHE_HINTS = { 'resources/list': { ttlMs: 300_000, cacheScope: 'public' } } as const;

/** tools/list's tools with the view named on tool_call (a copy: the gateway's list stays frozen). */
export function withViewMeta(tools: readonly Tool[]): Tool[] {
  return tools.map((t) => (t.name === 'tool_call' ? { ...t, _meta: { ...(t._meta ?? {}), ...TOOL_CALL_VIEW_META } } : t));
}

export function registerViewResource(server: Server): void {
  server.setRequestHandler('resources/list', async () => ({ resources: [{ ...VIEW_LISTING }] }));
  // Clients that see the resources capability often ask for templates too: there are none.
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async (request) => {
    if (request.params.uri !== VIEW_URI) throw new ResourceNotFoundError(request.params.uri);
    return { contents: [viewContents()] };
  });
}
