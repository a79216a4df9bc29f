import { createMcpHandler, isJsonContentType, isLegacyRequest, PROTOCOL_VERSION_META_KEY, type AuthInfo, type McpHandlerRequestOptions } from '@modelcontextprotocol/server';
import type { Handler } from 'hono';
import type { AuthEdge } from '../auth/index.js';
import { auditFacts } from '../edge/audit.js';
import { readCappedBody } from '../edge/body-limit.js';
import type { Gateway } from '../../core/gateway.js';
import { LegacySessions, methodNotAllowed } from './legacy-sessions.js';
import { createMcpServer } from './server-factory.js';

// POST /mcp serves both protocol eras at once. The SDK's own classifier decides the era (a request
// carrying the 2026-07-28 `_meta` envelope is modern; `initialize` and session traffic are legacy):
// modern requests go to the SDK's per-request handler, legacy ones to real stateful sessions.

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
  const modern = createMcpHandler((ctx) => createMcpServer(gateway, ctx.era), {
    legacy: 'reject',
    maxRequestBodySize: limits.maxRequestBodyBytes,
    onerror: onError,
  });
  const legacySessions = new LegacySessions({
    createServer: () => createMcpServer(gateway, 'legacy'),
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
    const rpcMethod = (parsedBody as { method?: unknown } | null)?.method;
    if (typeof rpcMethod === 'string') auditFacts(request).rpc_method = rpcMethod;
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
