import { Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import type { Gateway } from '../../core/gateway.js';
import type { RequestScope } from '../../core/dispatch.js';
import { packageVersion } from '../../../shared/package-root.js';
import type { Grant } from '../../core/scopes.js';
import { requestRecordOf } from '../../platform/telemetry.js';
import { registerViewResource, rendersViews, resultFor, VIEW_CACHE_HINTS, VIEW_CAPABILITIES, withViewMeta } from '../app-view/register.js';

// One low-level SDK Server per modern request, or per legacy session. It only answers tools/list
// (the frozen six, tool_call naming the result view) and tools/call (through the gateway's Dispatcher),
// plus the result view's one resource (supervisor/http/app-view/); everything protocol-level
// (initialize, server/discover, _meta and header checks, error codes) is the SDK's.

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
