import { createMcpHandler, isJsonContentType, isLegacyRequest, readRequestBody, type McpHandlerRequestOptions } from '@modelcontextprotocol/server';
import type { Gateway } from '../gateway.js';
import { LegacySessions, methodNotAllowed } from './legacy-sessions.js';
import { createMcpServer } from './server-factory.js';

// POST /mcp serves both protocol eras at once. The SDK's own classifier decides the era (a request
// carrying the 2026-07-28 `_meta` envelope is modern; `initialize` and session traffic are legacy):
// modern requests go to the SDK's per-request handler, legacy ones to real stateful sessions.

export interface McpEndpoint {
  handle(request: Request): Promise<Response>;
  legacySessions: LegacySessions;
  close(): Promise<void>;
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

  async function handle(request: Request): Promise<Response> {
    if (request.method === 'GET' || request.method === 'DELETE') {
      // Only legacy sessions have GET/DELETE semantics; the modern era answers 405.
      return request.headers.has('mcp-session-id') ? legacySessions.handle(request, {}) : methodNotAllowed();
    }
    if (request.method !== 'POST') return methodNotAllowed();
    if (!isJsonContentType(request.headers.get('content-type'))) return unsupportedMediaType();
    // The body is read once, under the size cap (chunked bodies included), and handed to whichever
    // era serves it instead of each layer reading and parsing it again.
    const body = await readRequestBody(request, limits.maxRequestBodyBytes);
    if (body.tooLarge) return payloadTooLarge(limits.maxRequestBodyBytes);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(body.text);
    } catch {
      return parseError();
    }
    const options: McpHandlerRequestOptions = { parsedBody };
    if (await isLegacyRequest(request, parsedBody)) return legacySessions.handle(request, options);
    return modern.fetch(request, options);
  }

  return {
    handle,
    legacySessions,
    async close() {
      legacySessions.closeAll();
      await modern.close();
    },
  };
}
