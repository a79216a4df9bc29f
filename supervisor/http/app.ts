import { localhostHostValidation, localhostOriginValidation } from '@modelcontextprotocol/hono';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { AuthEdge } from './auth/index.js';
import type { Gateway } from '../core/gateway.js';
import { eventLoopDelay } from '../platform/health/event-loop-delay.js';
import type { HttpLifecycle, McpEndpoint } from './mcp/endpoint.js';
import { bindRequestRecord, isClientAbort, logRequest, newRequestRecord, requestRecordOf, type GatewayMetrics } from '../platform/telemetry.js';

// The HTTP surface: /mcp, /healthz, /readyz, /metrics behind DNS-rebinding protection (loopback Host and
// Origin names only, any port) and one log event per request.

interface HttpCounters {
  inflightRequests: number;
}

export function createApp(gateway: Gateway, endpoint: McpEndpoint, auth?: AuthEdge, metrics?: GatewayMetrics): { app: Hono; counters: HttpCounters; lifecycle: HttpLifecycle } {
  const counters: HttpCounters = { inflightRequests: 0 };
  const lifecycle: HttpLifecycle = { draining: false };
  const app = new Hono();

  app.use('*', requestLog(gateway, counters, metrics));
  if (auth) {
    // Authentication on (supervisor/http/auth/): loopback and the configured public names, a credential on every /mcp request.
    app.use('*', auth.originGuard);
    auth.mount(app);
  } else {
    app.use('*', localhostHostValidation());
    app.use('*', localhostOriginValidation());
  }
  /** Only the operator on this machine sees readiness details and metrics; through a public name they stay private. */
  const isLocal = (request: Request) => !auth || auth.isLocal(request);

  app.all('/mcp', endpoint.route(lifecycle, auth));
  // Liveness only: never calls a provider, never touches the disk.
  app.get('/healthz', (c) => c.json(isLocal(c.req.raw) ? health(gateway, endpoint, counters, lifecycle) : { status: 'ok' }));
  app.get('/readyz', async (c) => {
    if (lifecycle.draining) return c.json({ status: 'draining' }, 503);
    const report = await gateway.readiness.check();
    if (!isLocal(c.req.raw)) return c.json({ status: report.ready ? 'ready' : 'not_ready' }, report.ready ? 200 : 503);
    return c.json({ status: report.ready ? 'ready' : 'not_ready', ...(report.ready ? {} : { reasons: report.reasons }), components: report.components, ...gateway.readyFacts() }, report.ready ? 200 : 503);
  });
  // Prometheus text format. Never through the public URL: traffic and readiness are the operator's.
  if (metrics) {
    app.get('/metrics', async (c) => {
      if (!isLocal(c.req.raw)) return c.json({ error: 'FORBIDDEN', message: '/metrics is served on loopback only' }, 403);
      return c.body(await metrics.render(), 200, { 'content-type': metrics.registry.contentType });
    });
  }
  app.notFound((c) => c.json({ error: 'NOT_FOUND', message: `no route ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => unhandled(gateway, error, c));
  return { app, counters, lifecycle };
}

/** Every request: its record (what the call writes into it), counted in flight on /mcp, logged and measured once answered. */
function requestLog(gateway: Gateway, counters: HttpCounters, metrics: GatewayMetrics | undefined): MiddlewareHandler {
  return async (c, next) => {
    const record = newRequestRecord(c.req.method, c.req.path, c.req.header('x-request-id') ?? c.req.header('mcp-request-id'));
    const isMcp = c.req.path === '/mcp';
    if (isMcp) counters.inflightRequests++;
    try {
      bindRequestRecord(c.req.raw, record);
      await next();
    } finally {
      if (isMcp) counters.inflightRequests--;
      logRequest(gateway.log, record, c.res.status);
      metrics?.observeRequest(record, c.res.status);
    }
  };
}

/** /healthz for the operator on this machine: liveness facts, never a provider call. */
function health(gateway: Gateway, endpoint: McpEndpoint, counters: HttpCounters, lifecycle: HttpLifecycle): Record<string, unknown> {
  return {
    status: 'ok',
    uptime_seconds: Math.round((Date.now() - gateway.startedAt) / 1000),
    inflight_requests: counters.inflightRequests,
    inflight_native_calls: gateway.owners.inflightNativeCalls,
    draining: lifecycle.draining,
    zombie_children: gateway.orphans.zombieCount(),
    orphans_reaped: gateway.orphans.reaped,
    catalog_size: gateway.catalog.size,
    public_tools: gateway.publicToolList().length,
    legacy_sessions: endpoint.legacySessions.size,
    capability_sessions: gateway.capabilities.activeCount(),
    event_loop_delay: eventLoopDelay(),
    ...gateway.healthFacts(),
  };
}

/**
 * Replaces Hono's default (console.error with a stack, 500): a client that went away while its
 * body was being read (closed socket, broken chunked framing) is the client's doing, logged once
 * by the request event as client_aborted, never as a server error. 499 is only what the log
 * records: nobody is left to read it. Anything else is one structured error event and a 500.
 */
function unhandled(gateway: Gateway, error: Error, c: Context): Response {
  const record = requestRecordOf(c.req.raw);
  if (isClientAbort(error, c.req.raw)) {
    if (record) record.category = 'client_aborted';
    return new Response(null, { status: 499 });
  }
  gateway.log.error({ event: 'http_unhandled_error', path: c.req.path, err: error }, 'unhandled error');
  return c.text('Internal Server Error', 500);
}
