import { isJsonContentType } from '@modelcontextprotocol/server';
import { statSync } from 'node:fs';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Limits } from '../../../shared/limits.js';
import { AuditLog, auditFacts, auditRequests } from '../edge/audit.js';
import { bearerAuth, tokenDigest } from '../edge/bearer.js';
import { readCappedBody } from '../edge/body-limit.js';
import { clientIp } from '../edge/client-ip.js';
import { rateLimit, TokenBuckets } from '../edge/rate-limit.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { createRpcHandler, type RpcDeps } from './profile-rpc.js';
import { readBridgeToken, type BridgeState } from '../../tools/agent-tasks/index.js';

// The drop-in hermes-mcp-bridge HTTP surface: POST /mcp (stateless JSON-RPC, profile-rpc.ts) and
// GET|HEAD /health, behind that bridge's edge rules in its order: audit line for every request,
// per-IP token bucket (before auth, so failed guesses are rate limited too), 405 for anything but
// POST, the one bearer token (401 + WWW-Authenticate), 415 for non-JSON, 413 over the body cap.
// The same app is mounted at /bridge on the gateway port and served on MCP_PORT.

const SERVICE = 'hermes-mcp-bridge';

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** The MCP_AUTH_TOKEN digest, re-read when the .env file changes: a rotated token applies without a restart. */
function tokenSource(envFile: string): () => Buffer | undefined {
  let signature = '';
  let digest: Buffer | undefined;
  return () => {
    const stat = statSync(envFile, { throwIfNoEntry: false });
    const next = stat ? `${stat.mtimeMs}:${stat.size}:${stat.ino}` : '';
    if (next !== signature) {
      signature = next;
      const token = readBridgeToken(envFile);
      digest = token ? tokenDigest(token) : undefined;
    }
    return digest;
  };
}

export interface ProfileOptions {
  state: BridgeState;
  tools: readonly ToolDefinition[];
  limits: Limits;
  version: string;
  log: Logger;
  /** While true (the gateway drains or the bridge closes), /mcp answers `refusal()`: 503 + Retry-After. */
  refusing(): boolean;
  refusal(): Response;
  track: RpcDeps['track'];
}

export function bridgeProfileApp(options: ProfileOptions): { app: Hono; audit?: AuditLog } {
  const { state, limits, log } = options;
  const app = new Hono();
  if (state.kind !== 'configured') {
    const answer = { status: 'not_configured', service: SERVICE, reason: state.reason };
    app.all('*', (c) => c.json(answer, 503));
    return { app };
  }
  const { service } = state;
  const audit = new AuditLog(service.settings.auditLog, limits.bridgeAuditMaxBytes, (error) => log.error({ event: 'bridge_audit_failed', err: String(error) }));
  const rpc = createRpcHandler({
    tools: options.tools,
    serverInfo: { name: SERVICE, version: options.version },
    maxBatch: limits.bridgeMaxBatch,
    maxResultChars: limits.bridgeResponseMaxChars,
    onInternalError: (tool, error) => log.error({ event: 'tool_internal_error', tool, ...(error instanceof Error ? { err: error } : { reason: String(error) }) }),
    track: options.track,
  });
  const expected = tokenSource(service.settings.envFile);

  app.use('*', auditRequests(audit, clientIp));
  // A shutting-down gateway takes no new task on either mount; running ones finish (drain waits).
  app.use('/mcp', async (c, next) => (options.refusing() ? options.refusal() : next()));
  app.use('*', rateLimit(new TokenBuckets(limits.bridgeRateLimitPerMinute), clientIp));
  app.on(['GET', 'HEAD'], '/health', (c) => {
    const view = service.registry.current();
    const available = view.agents.filter((a) => 'key' in service.registry.keyOf(a)).length;
    // Without a usable MCP_AUTH_TOKEN /mcp fails closed (503), so health must not say ok.
    const authMissing = expected() === undefined;
    return c.json({
      status: authMissing ? 'degraded' : 'ok',
      ...(authMissing ? { auth: 'not_configured' } : {}),
      service: SERVICE,
      version: options.version,
      tools: options.tools.length,
      agents: { default: view.defaultName, count: view.agents.length, available },
      ...(view.degraded ? { degraded: view.degraded } : {}),
      ...(view.error ? { registry_error: view.error } : {}),
    });
  });
  app.all('/mcp', async (c, next) => (c.req.method === 'POST' ? next() : rpcError(405, -32000, 'Method Not Allowed: POST only', { allow: 'POST' })));
  app.post(
    '/mcp',
    bearerAuth({ expected, realm: SERVICE, unauthorized: (reason) => ({ jsonrpc: '2.0', id: null, error: { code: -32001, message: reason === 'missing' ? 'Unauthorized: bearer token required' : 'Unauthorized: invalid token' } }) }),
    async (c) => {
      const facts = auditFacts(c.req.raw);
      if (!isJsonContentType(c.req.header('content-type') ?? null)) return rpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      const text = await readCappedBody(c.req.raw, limits.bridgeMaxBodyBytes);
      if (text === undefined) return rpcError(413, -32000, `Payload Too Large: at most ${limits.bridgeMaxBodyBytes} bytes`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        facts.error = 'parse_error';
        return rpcError(400, -32700, 'Parse error');
      }
      const answer = await rpc(body, c.req.header('mcp-protocol-version') ?? null, c.req.raw.signal, facts);
      if (answer.status === 202) return c.body(null, 202);
      return c.json(answer.body as Record<string, unknown>, answer.status);
    },
  );
  app.notFound((c) => c.json({ error: 'not_found', message: `no route ${c.req.method} ${c.req.path}` }, 404));
  return { app, audit };
}
