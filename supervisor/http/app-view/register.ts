import { ResourceNotFoundError, type ClientCapabilities, type Server, type ServerCapabilities, type Tool } from '@modelcontextprotocol/server';
import { STYLED_META_KEY } from '../../core/styled.js';
import type { NormalizedToolResult } from '../../core/tool-types.js';
import { TOOL_CALL_VIEW_META, VIEW_EXTENSION_ID, VIEW_LISTING, VIEW_MIME_TYPE, VIEW_URI, viewContents } from './resource.js';

// How the MCP server serves the result view: one resource in resources/list and resources/read
// (both eras; the SDK answers server/discover from the capabilities below), tool_call's `_meta` in
// tools/list, and in results the view's styled twins (core/styled.ts) for clients that render
// views. No tool is added, and the text and structured result the model reads are the same for
// every client.
//
// tools/list is one frozen list, the same for every caller and cached as such, so tool_call names
// the view for everyone: `_meta` a client does not know is inert, and ChatGPT reads its
// `openai/outputTemplate` whether or not it declares the extension. A result's `_meta` is per call:
// a client that does not render views gets the result exactly as before the view existed.

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

/**
 * Whether a client renders views: it declares the MCP Apps extension with the view's MIME type
 * (the extension's own check, ext-apps' getUiCapability), or it is ChatGPT, which renders
 * `openai/outputTemplate` and marks its tool calls with its Apps SDK request metadata
 * (`openai/locale`, `openai/userAgent`, ... in the request's `_meta`).
 */
export function rendersViews(capabilities: ClientCapabilities | undefined, requestMeta: Record<string, unknown> | undefined): boolean {
  const ui = capabilities?.extensions?.[VIEW_EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  if (Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(VIEW_MIME_TYPE)) return true;
  return requestMeta !== undefined && Object.keys(requestMeta).some((key) => key.startsWith('openai/'));
}

/** A tool result as a client gets it: the view's styled twins only for a client that renders views. */
export function resultFor(result: NormalizedToolResult, views: boolean): NormalizedToolResult {
  if (views || result._meta === undefined || !(STYLED_META_KEY in result._meta)) return result;
  const { [STYLED_META_KEY]: _twins, ...meta } = result._meta;
  const { _meta: _all, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
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
