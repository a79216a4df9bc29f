import { serve, type ServerType } from '@hono/node-server';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { isLoopbackHost, type GatewayConfig } from '../platform/config.js';
import type { HttpLifecycle } from './mcp/endpoint.js';
import { listenerTimeouts } from './edge/keep-alive.js';
import { monotonicMs } from '../../shared/clock.js';

// Serves a composed gateway's app (supervisor/compose/): an HTTP listener on loopback only, its
// drain and its close. What is served is decided by the composition; this file only listens.

export interface DrainOutcome {
  drained: boolean;
  open_requests: number;
  inflight_native_calls: number;
}

/** What the listener serves, and what its drain waits for besides its own open requests. */
export interface Served {
  app: Hono;
  lifecycle: HttpLifecycle;
  /** Requests open on another listener whose calls are this gateway's (the bridge's own MCP_PORT listener). */
  openElsewhere(): number;
  inflightNativeCalls(): number;
  /** Stops what the app serves: called once idle connections are closed, before the listener closes. */
  stop(): Promise<void>;
}

export interface Listener {
  port: number;
  url: string;
  /** The HTTP listener (its keep-alive, headers and request timeouts are the http* limits). */
  httpServer: Server;
  /**
   * The first half of a controlled shutdown: stop taking new work (/mcp answers 503 with
   * Retry-After, /readyz 503 `draining`, /healthz keeps answering), then wait until no POST /mcp
   * response is still open and no native call runs, at most `timeoutMs`. Reports what was left.
   */
  drain(timeoutMs: number): Promise<DrainOutcome>;
  close(): Promise<void>;
}

const DRAIN_POLL_MS = 25;

/** Refuses any host but loopback: checked before anything starts, and again by the listener, so no embedding can bind wider. */
export function assertLoopback(host: string): void {
  if (!isLoopbackHost(host)) throw new Error(`refusing to bind non-loopback host ${host}`);
}

/** Listens on `config.host:config.port` (loopback only) and serves `served.app` there. */
export async function serveGateway(config: Pick<GatewayConfig, 'host' | 'port' | 'limits'>, served: Served): Promise<Listener> {
  assertLoopback(config.host);
  const { lifecycle } = served;
  // Long keep-alive (edge/keep-alive.ts); a drain ends each connection after its answer.
  const serverOptions = listenerTimeouts(config.limits);
  const server = await new Promise<ServerType & Server>((resolve, reject) => {
    const s = serve({ fetch: served.app.fetch, hostname: config.host, port: config.port, serverOptions }, () => resolve(s as ServerType & Server));
    s.once('error', reject);
  });
  const open = trackResponses(server, lifecycle);
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  let closed = false;
  return {
    port,
    url: `http://${host}:${port}`,
    httpServer: server,
    async drain(timeoutMs) {
      lifecycle.draining = true;
      const openRequests = () => open.posts() + served.openElsewhere();
      const outcome = (): DrainOutcome => ({ drained: openRequests() === 0 && served.inflightNativeCalls() === 0, open_requests: openRequests(), inflight_native_calls: served.inflightNativeCalls() });
      const deadline = monotonicMs() + timeoutMs;
      // Every answer from now on says Connection: close and ends its connection, the calls in flight
      // included; a connection still idle is closed with the listener, right after the drain. Not
      // here: a client reusing it at that moment would get a reset, where it now gets a 503.
      open.closeAfterAnswers();
      while (!outcome().drained && monotonicMs() < deadline) await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      return outcome();
    },
    async close() {
      if (closed) return;
      closed = true;
      // The drain is over: nothing more is answered on an idle connection, so none waits out its keep-alive.
      server.closeIdleConnections();
      await served.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets would hold close() open; end them.
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Counts the open POST responses and keeps the unanswered ones. Calls are POSTs; a response counts
 * until it is fully written (a streamed answer outlives its handler). GET streams carry no call
 * and would hold a drain open for nothing. Once draining, each answer not yet sent closes its
 * connection after it (a call in flight answers, then its connection goes), so a client learns it
 * from the answer, not from a reset.
 */
function trackResponses(server: Server, lifecycle: HttpLifecycle): { posts(): number; closeAfterAnswers(): void } {
  let openPosts = 0;
  const unanswered = new Set<ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const post = req.method === 'POST';
    if (post) openPosts++;
    if (lifecycle.draining) res.shouldKeepAlive = false;
    else unanswered.add(res);
    res.once('close', () => {
      unanswered.delete(res);
      if (post) openPosts--;
    });
  });
  return {
    posts: () => openPosts,
    closeAfterAnswers() {
      for (const res of unanswered) if (!res.headersSent) res.shouldKeepAlive = false;
    },
  };
}
