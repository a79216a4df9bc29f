import { ResourceNotFoundError, Server, type CallToolResult, type ClientCapabilities, type ServerCapabilities, type Tool } from '@modelcontextprotocol/server';
import type { Gateway } from '../../core/gateway.js';
import type { RequestScope } from '../../core/dispatch.js';
import { packageVersion } from '../../../shared/package-root.js';
import type { Grant } from '../../core/scopes.js';
import { requestRecordOf } from '../../platform/telemetry.js';
import { STYLED_META_KEY } from '../../core/styled.js';
import type { NormalizedToolResult } from '../../core/tool-types.js';
import { TOOL_CALL_VIEW_META, VIEW_EXTENSION_ID, VIEW_LISTING, VIEW_MIME_TYPE, VIEW_URI, viewContents } from '../app-view/resource.js';

// One low-level SDK Server per modern request, or per legacy session. It only answers tools/list
// (the frozen six, tool_call naming the result view) and tools/call (through the gateway's Dispatcher),
// plus the result view's one resource (supervisor/http/app-view/); everything protocol-level
// (initialize, server/discover, _meta and header checks, error codes) is the SDK's.
//
// The result view: one resource in resources/list and resources/read (both eras; the SDK answers
// server/discover from the capabilities below), tool_call's `_meta` in tools/list, and in results
// the view's styled twins (core/styled.ts) for clients that render views. No tool is added, and
// the text and structured result the model reads are the same for every client. tools/list is one
// frozen list, the same for every caller and cached as such, so tool_call names the view for
// everyone: `_meta` a client does not know is inert, and ChatGPT reads its `openai/outputTemplate`
// whether or not it declares the extension. A result's `_meta` is per call: a client that does not
// render views gets no styled twins.

const SERVER_INFO = { name: 'hermes-mcp-gateway', version: packageVersion() };

const INSTRUCTIONS = [
  'Hermes MCP gateway: six public tools; everything else is discovered progressively.',
  'Use tool_search to find a tool, tool_describe for its schema, tool_call to run exactly one.',
  'Terminal, process, browser and job tools need continuity: call session_open once (through tool_call) and pass its token as tool_call.session_token.',
  'Long builds, tests and deploys go through job_prepare/job_start, never direct terminal.',
].join(' ');

export function createMcpServer(gateway: Gateway, era: 'legacy' | 'modern'): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, ...VIEW_CAPABILITIES },
    instructions: INSTRUCTIONS,
    // The catalog is frozen for the life of the process and identical for every caller.
    cacheHints: { 'tools/list': { ttlMs: 300_000, cacheScope: 'public' }, ...VIEW_CACHE_HINTS },
  });
  server.setRequestHandler('tools/list', async () => ({ tools: withViewMeta(gateway.publicToolList() as Tool[]) }));
  registerViewResource(server);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    // Cancellation: the SDK aborts mcpReq.signal on notifications/cancelled and transport close,
    // and a modern exchange's transport closes when its client disconnects. A legacy session's
    // transport outlives the HTTP request, so there the request's own signal is added.
    const httpSignal = era === 'legacy' ? (ctx as { http?: { req?: Request } }).http?.req?.signal : undefined;
    const signal = httpSignal ? AbortSignal.any([ctx.mcpReq.signal, httpSignal]) : ctx.mcpReq.signal;
    // With authentication on, the credential's grant (supervisor/http/auth/middleware.ts) bounds what the call may run.
    const grant = (ctx as { http?: { authInfo?: { extra?: { grant?: Grant } } } }).http?.authInfo?.extra?.grant;
    const record = requestRecordOf((ctx as { http?: { req?: Request } }).http?.req);
    const scope: RequestScope = { era, signal, ...(era === 'legacy' && ctx.sessionId ? { sessionId: ctx.sessionId } : {}), ...(grant ? { grant } : {}), ...(record ? { record } : {}) };
    const result = await gateway.dispatcher.callPublic(request.params.name, request.params.arguments, scope);
    return resultFor(result, rendersViews(server.getClientCapabilities(), request.params._meta)) as CallToolResult;
  });
  return server;
}

/** The capabilities the view adds: a static resource list and the MCP Apps extension. */
const VIEW_CAPABILITIES: Pick<ServerCapabilities, 'resources' | 'extensions'> = {
  resources: { listChanged: false },
  extensions: { [VIEW_EXTENSION_ID]: {} },
};

/** The list is frozen for the life of the process and identical for every caller, like tools/list. */
const VIEW_CACHE_HINTS = { 'resources/list': { ttlMs: 300_000, cacheScope: 'public' } } as const;

/** tools/list's tools with the view named on tool_call (a copy: the gateway's list stays frozen). */
function withViewMeta(tools: readonly Tool[]): Tool[] {
  return tools.map((t) => (t.name === 'tool_call' ? { ...t, _meta: { ...(t._meta ?? {}), ...TOOL_CALL_VIEW_META } } : t));
}

/**
 * Whether a client renders views: it declares the MCP Apps extension with the view's MIME type
 * (the extension's own check, ext-apps' getUiCapability), or it is ChatGPT, which renders
 * `openai/outputTemplate` and marks its tool calls with its Apps SDK request metadata
 * (`openai/locale`, `openai/userAgent`, ... in the request's `_meta`).
 */
function rendersViews(capabilities: ClientCapabilities | undefined, requestMeta: Record<string, unknown> | undefined): boolean {
  const ui = capabilities?.extensions?.[VIEW_EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  if (Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(VIEW_MIME_TYPE)) return true;
  return requestMeta !== undefined && Object.keys(requestMeta).some((key) => key.startsWith('openai/'));
}

/** A tool result as a client gets it: the view's styled twins only for a client that renders views. */
function resultFor(result: NormalizedToolResult, views: boolean): NormalizedToolResult {
  if (views || result._meta === undefined || !(STYLED_META_KEY in result._meta)) return result;
  const { [STYLED_META_KEY]: _twins, ...meta } = result._meta;
  const { _meta: _all, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

function registerViewResource(server: Server): void {
  server.setRequestHandler('resources/list', async () => ({ resources: [{ ...VIEW_LISTING }] }));
  // Clients that see the resources capability often ask for templates too: there are none.
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async (request) => {
    if (request.params.uri !== VIEW_URI) throw new ResourceNotFoundError(request.params.uri);
    return { contents: [viewContents()] };
  });
}
