import { createMcpHandler, isJsonContentType, isLegacyRequest, PROTOCOL_VERSION_META_KEY, ResourceNotFoundError, Server, type AuthInfo, type CallToolResult, type ClientCapabilities, type McpHandlerRequestOptions, type ServerCapabilities, type Tool } from '@modelcontextprotocol/server';
import type { Handler } from 'hono';
import type { AuthEdge } from '../auth/index.js';
import { auditFacts } from '../edge/audit.js';
import { readCappedBody } from '../edge/body-limit.js';
import type { Gateway } from '../../core/gateway.js';
import { LegacySessions, methodNotAllowed } from './legacy-sessions.js';
import type { RequestScope } from '../../core/dispatch.js';
import type { Grant } from '../../core/scopes.js';
import { STYLED_META_KEY } from '../../core/styled.js';
import type { NormalizedToolResult } from '../../core/tool-types.js';
import { requestRecordOf } from '../../platform/telemetry.js';
import { packageVersion } from '../../../shared/package-root.js';
import { TOOL_CALL_VIEW_META, VIEW_EXTENSION_ID, VIEW_LISTING, VIEW_MIME_TYPE, VIEW_URI, viewContents } from '../app-view/resource.js';

// POST /mcp serves both protocol eras at once. The SDK's own classifier decides the era (a request
// carrying the 2026-07-28 `_meta` envelope is modern; `initialize` and session traffic are legacy):
// modern requests go to the SDK's per-request handler, legacy ones to real stateful sessions. Each
// is served by an SDK server of its own (createMcpServer, below).

/** Shutdown state: once draining, /mcp refuses new requests and /readyz says so. */
export interface HttpLifecycle {
  draining: boolean;
}

export interface McpEndpoint {
  /** `authInfo`: the verified credential when authentication is on (reaches tool handlers as ctx.http.authInfo). */
  handle(request: Request, authInfo?: AuthInfo): Promise<Response>;
  /**
   * The /mcp route: 503 while draining, else the request through authentication (when it is on)
   * to handle(). Which of the two it is, is decided here, once.
   */
  route(lifecycle: HttpLifecycle, auth: AuthEdge | undefined): Handler;
  legacySessions: LegacySessions;
  close(): Promise<void>;
}

/** What /mcp answers while the gateway drains: retry later (a restarted gateway will serve it). */
export function shuttingDown(retryAfterSeconds: number): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `Service Unavailable: the gateway is shutting down; retry in ${retryAfterSeconds} s` }, id: null }),
    // Connection: close, so a keep-alive client reconnects (to the restarted gateway) next time.
    { status: 503, headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds), connection: 'close' } },
  );
}

function parseError(): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: invalid JSON' }, id: null }), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });
}

function payloadTooLarge(max: number): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `Payload Too Large: request body must not exceed ${max} bytes` }, id: null }),
    { status: 413, headers: { 'content-type': 'application/json' } },
  );
}

function unsupportedMediaType(): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' }, id: null }),
    { status: 415, headers: { 'content-type': 'application/json' } },
  );
}

function carriesModernEnvelope(body: unknown): boolean {
  const params = (body as { params?: { _meta?: Record<string, unknown> } } | null)?.params;
  const method = (body as { method?: unknown } | null)?.method;
  return method !== 'initialize' && typeof params?._meta?.[PROTOCOL_VERSION_META_KEY] === 'string';
}

export function createMcpEndpoint(gateway: Gateway, onError: (error: Error) => void): McpEndpoint {
  const { limits } = gateway.config;
  // tools/list's answer, the same for every server: the frozen public list with the view named on tool_call.
  const tools = withViewMeta(gateway.publicToolList() as Tool[]);
  const modern = createMcpHandler((ctx) => createMcpServer(gateway, ctx.era, tools), {
    legacy: 'reject',
    maxRequestBodySize: limits.maxRequestBodyBytes,
    onerror: onError,
  });
  const legacySessions = new LegacySessions({
    createServer: () => createMcpServer(gateway, 'legacy', tools),
    idleMs: limits.legacySessionIdleSeconds * 1000,
    maxSessions: limits.maxLegacySessions,
    now: gateway.now,
    isBusy: (id) => gateway.owners.leaseCount(`legacy:${id}`) > 0,
    onSessionEnded: (id, reason) => gateway.endOwner(`legacy:${id}`, reason),
  });

  // Idle sessions are ended on a timer too, not only when another client initializes, so an
  // abandoned session's terminal and processes are released within a minute of its expiry.
  const sweeper = setInterval(() => legacySessions.sweep(), 60_000);
  sweeper.unref();

  async function handle(request: Request, authInfo?: AuthInfo): Promise<Response> {
    const auth = authInfo ? { authInfo } : {};
    if (request.method === 'GET' || request.method === 'DELETE') {
      // Only legacy sessions have GET/DELETE semantics; the modern era answers 405.
      return request.headers.has('mcp-session-id') ? legacySessions.handle(request, auth) : methodNotAllowed();
    }
    if (request.method !== 'POST') return methodNotAllowed();
    if (!isJsonContentType(request.headers.get('content-type'))) return unsupportedMediaType();
    // The body is read once, under the size cap, and handed to whichever era serves it instead of
    // each layer reading and parsing it again.
    const text = await readCappedBody(request, limits.maxRequestBodyBytes);
    if (text === undefined) return payloadTooLarge(limits.maxRequestBodyBytes);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return parseError();
    }
    const options: McpHandlerRequestOptions = { parsedBody, ...auth };
    // For the request's audit line, which only the authenticated edge writes (auth/middleware.ts).
    const rpcMethod = (parsedBody as { method?: unknown } | null)?.method;
    if (authInfo && typeof rpcMethod === 'string') auditFacts(request).rpc_method = rpcMethod;
    // The spec's own era rule (basic/versioning): a request carrying the 2026-07-28 `_meta`
    // envelope is modern. Those go straight to the modern handler, which classifies and validates
    // them fully itself; everything else asks the SDK classifier, so the two can never disagree
    // about a legacy request.
    if (!carriesModernEnvelope(parsedBody) && (await isLegacyRequest(request, parsedBody))) return legacySessions.handle(request, options);
    return modern.fetch(request, options);
  }

  const retryAfter = limits.shutdownGraceSeconds;
  return {
    handle,
    route(lifecycle, auth) {
      if (!auth) return (c) => (lifecycle.draining ? shuttingDown(retryAfter) : handle(c.req.raw));
      return (c) => (lifecycle.draining ? shuttingDown(retryAfter) : auth.mcp(c, (authInfo) => handle(c.req.raw, authInfo)));
    },
    legacySessions,
    async close() {
      clearInterval(sweeper);
      legacySessions.closeAll();
      await modern.close();
    },
  };
}

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

function createMcpServer(gateway: Gateway, era: 'legacy' | 'modern', tools: Tool[]): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, ...VIEW_CAPABILITIES },
    instructions: INSTRUCTIONS,
    // The catalog is frozen for the life of the process and identical for every caller.
    cacheHints: { 'tools/list': { ttlMs: 300_000, cacheScope: 'public' }, ...VIEW_CACHE_HINTS },
  });
  server.setRequestHandler('tools/list', async () => ({ tools }));
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
