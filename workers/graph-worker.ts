import { FrameError } from '../shared/worker-protocol/frame.js';
import { graphProtocol, type GraphCallResult, type GraphFailure, type GraphProtocol } from '../shared/worker-protocol/graph.js';
import { killEverythingStarted } from './runtime/reap.js';
import { runWorker } from './runtime/run-worker.js';
import { SessionPool } from './graph/pool.js';
import { GraphFailureError, type UpstreamSession } from './graph/session.js';
import { monotonicMs } from '../shared/clock.js';

// The graph worker: one long-lived child of the gateway, in its own PID namespace, owning the graph
// upstream's stdio MCP sessions (graph/pool.ts, graph/session.ts). The upstreams are its children,
// so nothing they start outlives it, and it outlives no gateway. Requests are served concurrently
// (each session serializes its own calls) and each gets exactly one reply.
//
// It speaks the graph protocol (shared/worker-protocol/graph.ts).

let pool: SessionPool | undefined;

type Request = Exclude<GraphProtocol['toWorker'], { type: 'configure' }>;

const channel = runWorker(graphProtocol, { message: onMessage, lost: shutdown, terminate: shutdown });

function shutdown(): never {
  pool?.killAll();
  killEverythingStarted();
  process.exit(0);
}

/**
 * The upstream's environment: exactly this worker's own, which the supervisor built (the workers'
 * scrubbed environment plus the configured graph passthrough; the frame cap already taken out).
 * The worker tag stays: the fallback isolation modes find the upstreams' escapees by it.
 */
function upstreamEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return env;
}

function onMessage(message: GraphProtocol['toWorker']): void {
  if (message.type === 'configure') {
    const { type: _type, openTimeoutMs, ...settings } = message;
    pool ??= new SessionPool(settings, upstreamEnvironment(), openTimeoutMs);
    return;
  }
  if (!pool) return reply(message, { code: 'GRAPH_UPSTREAM_FAILED', message: 'the graph worker was sent a request before its configuration' });
  void serve(pool, message).catch((e: unknown) => reply(message, failureOf(e)));
}

async function serve(sessions: SessionPool, message: Request): Promise<void> {
  switch (message.type) {
    case 'status':
      return channel.send({ type: 'status-result', id: message.id, sessions: sessions.status() });
    case 'schema': {
      sessions.schemaRoot = message.cwd;
      const session = await sessions.acquire(message.cwd);
      sessions.release(session);
      return channel.send({ type: 'schema-result', id: message.id, tool: session.tool });
    }
    case 'call': {
      const session = await sessions.acquire(message.cwd);
      try {
        return sendResult(message.id, await session.call(message.arguments));
      } finally {
        sessions.release(session);
      }
    }
    case 'probe':
      sessions.schemaRoot = message.cwd; // a restarted worker learns it from the first probe
      return channel.send({ type: 'probe-result', id: message.id, ...(await probe(sessions, message.cwd, message.timeoutMs)) });
  }
}

/**
 * Readiness of the session at `cwd`, never waiting behind a call: a session in use (or still
 * opening) answers `busy` at once; an idle one must answer an MCP ping; a missing one is opened,
 * surface check included. The answer always comes within `timeoutMs`: an open that takes longer
 * goes on in the background and the probe says so.
 */
async function probe(sessions: SessionPool, cwd: string, timeoutMs: number): Promise<{ state: 'ok' | 'busy' | 'failed'; failure?: GraphFailure }> {
  const resident = sessions.peek(cwd);
  if (resident ? resident.users > 0 : sessions.isOpening(cwd)) return { state: 'busy' };
  const deadline = monotonicMs() + timeoutMs;
  const claimed = sessions.acquire(cwd);
  let timer: NodeJS.Timeout | undefined;
  let session: UpstreamSession | undefined;
  try {
    session = await Promise.race([claimed, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)))]);
  } catch (e) {
    // Every session slot is taken by calls: the upstream is evidently serving, not failing.
    if (e instanceof GraphFailureError && e.code === 'GRAPH_BUSY') return { state: 'busy' };
    throw e;
  } finally {
    clearTimeout(timer);
  }
  if (!session) {
    void claimed.then((late) => sessions.release(late), () => {});
    return { state: 'failed', failure: { code: 'GRAPH_TIMEOUT', message: `the graph upstream did not open a session in ${cwd} within ${timeoutMs} ms` } };
  }
  try {
    if (await session.ping(Math.max(1, deadline - monotonicMs()))) return { state: 'ok' };
    return { state: 'failed', failure: { code: 'GRAPH_UPSTREAM_FAILED', message: `the graph upstream for ${cwd} did not answer a ping within ${timeoutMs} ms` } };
  } finally {
    sessions.release(session);
  }
}

function sendResult(id: string, result: GraphCallResult): void {
  try {
    channel.send({ type: 'call-result', id, result });
  } catch (e) {
    // A result larger than the worker transport's frame cap cannot cross it; say so instead.
    if (!(e instanceof FrameError)) throw e;
    channel.send({ type: 'call-result', id, failure: { code: 'GRAPH_UPSTREAM_FAILED', message: `the graph result is too large for the worker transport (workerTransportMaxBytes): ${e.message}` } });
  }
}

function failureOf(e: unknown): GraphFailure {
  if (e instanceof GraphFailureError) return { code: e.code, message: e.message };
  return { code: 'GRAPH_UPSTREAM_FAILED', message: `the graph worker failed: ${(e as Error).message ?? String(e)}` };
}

function reply(message: Request, failure: GraphFailure): void {
  switch (message.type) {
    case 'schema':
      return channel.send({ type: 'schema-result', id: message.id, failure });
    case 'call':
      return channel.send({ type: 'call-result', id: message.id, failure });
    case 'probe':
      return channel.send({ type: 'probe-result', id: message.id, state: 'failed', failure });
    case 'status':
      return channel.send({ type: 'status-result', id: message.id, sessions: [] });
  }
}
