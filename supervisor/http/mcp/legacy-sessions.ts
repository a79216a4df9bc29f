import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport, type Server } from '@modelcontextprotocol/server';
import type { McpHandlerRequestOptions } from '@modelcontextprotocol/server';

// Real, validated SDK sessions for 2025-era clients. Terminal cwd, processes and browser bindings
// hang off these sessions, so an unknown or expired Mcp-Session-Id must be a 404 (the client then
// re-initializes) and never a silently fresh owner.

interface SessionEntry {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

interface LegacySessionOptions {
  createServer: () => Server;
  idleMs: number;
  maxSessions: number;
  now: () => number;
  /** Whether the owner `legacy:<id>` still has native work running (such sessions are not evicted). */
  isBusy: (sessionId: string) => boolean;
  /** Called once per ended session, whatever ended it (DELETE, idle expiry, eviction, shutdown). */
  onSessionEnded: (sessionId: string, reason: 'deleted' | 'expired' | 'evicted' | 'shutdown') => void;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

const sessionNotFound = () => jsonRpcError(404, -32001, 'Session not found');

/**
 * What the SDK's transport answers a request that has no Mcp-Session-Id and is not `initialize`
 * (HTTP 400). Such a request reached the 2025-era sessions only because it carries no 2026-07-28
 * `_meta` envelope either, so the answer keeps the SDK's code, status and words (clients behave
 * the same) and names the fix for each era.
 */
const NOT_INITIALIZED = { status: 400, code: -32000, message: 'Bad Request: Server not initialized' } as const;
const NOT_INITIALIZED_HINTED =
  `${NOT_INITIALIZED.message}: this request has no Mcp-Session-Id and no 2026-07-28 envelope. ` +
  'Sessionless (2026-07-28): add params._meta {"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}} ' +
  '(and the MCP-Protocol-Version and Mcp-Method headers, Mcp-Name for tools/call). ' +
  '2025 era: send initialize first, then its Mcp-Session-Id header on every request.';

/** Whether `response` is the SDK transport's NOT_INITIALIZED answer (read from a clone: the original stays unread). */
async function isNotInitialized(response: Response): Promise<boolean> {
  if (response.status !== NOT_INITIALIZED.status || !(response.headers.get('content-type') ?? '').includes('application/json')) return false;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown; message?: unknown } } | null;
    return body?.error?.code === NOT_INITIALIZED.code && body.error.message === NOT_INITIALIZED.message;
  } catch {
    return false;
  }
}

export class LegacySessions {
  private readonly sessions = new Map<string, SessionEntry>();

  constructor(private readonly options: LegacySessionOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  async handle(request: Request, options: McpHandlerRequestOptions): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const entry = this.sessions.get(sessionId);
      if (!entry || (this.isExpired(entry) && !this.options.isBusy(sessionId))) {
        if (entry) this.end(sessionId, 'expired');
        return sessionNotFound();
      }
      // No standalone server->client SSE stream is offered (the spec allows 405): nothing here
      // sends unsolicited messages, and idle GET streams only hold sockets open.
      if (request.method === 'GET') return methodNotAllowed();
      entry.lastSeen = this.options.now();
      return entry.transport.handleRequest(request, options);
    }
    if (request.method !== 'POST') return methodNotAllowed();
    return this.initialize(request, options);
  }

  /** A POST without a session id: only `initialize` may open a session (the transport enforces it). */
  private async initialize(request: Request, options: McpHandlerRequestOptions): Promise<Response> {
    this.sweep();
    if (this.sessions.size >= this.options.maxSessions && !this.evictOne()) {
      return jsonRpcError(503, -32000, `too many MCP sessions (${this.options.maxSessions}) are busy; retry later`);
    }
    const server = this.options.createServer();
    const entry: SessionEntry = {
      server,
      lastSeen: this.options.now(),
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          this.sessions.set(id, entry);
        },
        onsessionclosed: (id) => {
          this.end(id, 'deleted');
        },
      }),
    };
    await server.connect(entry.transport);
    const response = await entry.transport.handleRequest(request, options);
    if (entry.transport.sessionId !== undefined || !(await isNotInitialized(response))) return response;
    // Neither era's request: no session opened, nothing to keep.
    void entry.transport.close().catch(() => {});
    void server.close().catch(() => {});
    return jsonRpcError(response.status, NOT_INITIALIZED.code, NOT_INITIALIZED_HINTED);
  }

  private isExpired(entry: SessionEntry): boolean {
    return this.options.now() - entry.lastSeen > this.options.idleMs;
  }

  private end(sessionId: string, reason: 'deleted' | 'expired' | 'evicted' | 'shutdown'): void {
    const entry = this.sessions.get(sessionId);
    if (!entry) return;
    this.sessions.delete(sessionId);
    void entry.transport.close().catch(() => {});
    void entry.server.close().catch(() => {});
    this.options.onSessionEnded(sessionId, reason);
  }

  /** Ends idle sessions whose owner has nothing running. */
  sweep(): void {
    for (const [id, entry] of this.sessions) {
      if (this.isExpired(entry) && !this.options.isBusy(id)) this.end(id, 'expired');
    }
  }

  /** Evicts the least recently used idle session; false when every session is busy. */
  private evictOne(): boolean {
    let victim: string | undefined;
    let oldest = Number.POSITIVE_INFINITY;
    for (const [id, entry] of this.sessions) {
      if (entry.lastSeen < oldest && !this.options.isBusy(id)) {
        oldest = entry.lastSeen;
        victim = id;
      }
    }
    if (victim === undefined) return false;
    this.end(victim, 'evicted');
    return true;
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.end(id, 'shutdown');
  }
}

export function methodNotAllowed(): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }), {
    status: 405,
    headers: { 'content-type': 'application/json', allow: 'POST' },
  });
}
