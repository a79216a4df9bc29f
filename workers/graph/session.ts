import type { GraphCallResult, GraphFailureCode, GraphSettings, GraphToolDefinition } from '../../shared/worker-protocol/graph.js';
import { McpUpstream, UpstreamFailure } from '../mcp-upstream/session.js';
import { monotonicMs } from '../../shared/clock.js';

// One resident stdio MCP session with the graph upstream, for one project root: the upstream runs
// with that root as its cwd (the stdio session itself is ../mcp-upstream/session.ts). Opening it
// checks the surface once (tools/list must be exactly the configured tool); after that a call is
// one tools/call and nothing else. Calls on one session run one at a time, in arrival order; each
// has the call budget from its arrival, queueing included. A call past its budget kills the
// session (a stuck upstream must not hold the root), and a session whose upstream exits is closed
// for good: the pool opens a fresh one for the next call.

export class GraphFailureError extends Error {
  constructor(
    readonly code: GraphFailureCode,
    message: string,
  ) {
    super(message);
  }
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

export class UpstreamSession {
  /** Calls (and probes) holding this session: a session in use is never evicted. */
  users = 0;
  lastUsedAt = Date.now();
  closed = false;
  /** Called once when the session ends, whatever ended it. */
  onGone: (session: UpstreamSession) => void = () => {};
  private running = false;
  private readonly waiters: Waiter[] = [];

  private constructor(
    readonly root: string,
    readonly tool: GraphToolDefinition,
    private readonly upstream: McpUpstream,
    private readonly settings: GraphSettings,
  ) {}

  get pid(): number | undefined {
    return this.upstream.pid;
  }

  /** Spawns the upstream at `root`, connects and checks its surface, all within `timeoutMs`. */
  static async open(root: string, settings: GraphSettings, env: Record<string, string>, timeoutMs: number): Promise<UpstreamSession> {
    let opened: Awaited<ReturnType<typeof McpUpstream.open>>;
    try {
      opened = await McpUpstream.open({ command: settings.command, cwd: root, env, timeoutMs });
    } catch (e) {
      throw openFailure(e, settings, root, timeoutMs);
    }
    const { upstream, tools } = opened;
    const tool = tools[0];
    if (tools.length !== 1 || !tool || tool.name !== settings.tool) {
      // The refused upstream goes with its whole tree.
      await upstream.kill();
      const names = tools.map((t) => t.name);
      throw new GraphFailureError(
        'GRAPH_SURFACE_MISMATCH',
        `the graph upstream must list exactly one tool, "${settings.tool}" (HERMES_MCP_GRAPH_TOOL); it listed ${names.length === 0 ? 'none' : names.map((n) => JSON.stringify(n)).join(', ')}`,
      );
    }
    const session = new UpstreamSession(root, tool, upstream, settings);
    upstream.onGone = () => session.ended();
    if (upstream.closed) session.ended(); // it exited before anyone listened
    return session;
  }

  /** One tools/call, in turn; the budget counts from now. */
  async call(args: Record<string, unknown>): Promise<GraphCallResult> {
    const budgetMs = this.settings.callTimeoutMs;
    const deadline = monotonicMs() + budgetMs;
    await this.turn(deadline, budgetMs);
    try {
      return await this.upstream.call(this.tool.name, args, deadline - monotonicMs(), 'kill');
    } catch (e) {
      if (!(e instanceof UpstreamFailure)) throw e;
      if (e.kind === 'timeout') {
        throw new GraphFailureError('GRAPH_TIMEOUT', `the graph upstream did not answer within ${budgetMs / 1000} s (graphCallTimeoutSeconds); its session for ${this.root} was killed and the next call starts a fresh one`);
      }
      if (e.kind === 'exited') {
        throw new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph upstream for ${this.root} exited during the call; the next call starts a fresh session${e.stderrNote()}`);
      }
      // The upstream answered with a JSON-RPC error (or a result the SDK refused): the session stays.
      throw new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph upstream refused the call: ${e.cause}`);
    } finally {
      this.next();
    }
  }

  /** An MCP ping within `timeoutMs` (readiness); false when the upstream does not answer. */
  ping(timeoutMs: number): Promise<boolean> {
    return this.upstream.ping(timeoutMs);
  }

  /** Polite close (eviction): stdin ends and the upstream gets a few seconds; then its tree is killed. */
  close(): Promise<void> {
    return this.upstream.close();
  }

  /** Immediate whole-tree kill (timeout, shutdown). */
  kill(): void {
    void this.upstream.kill();
  }

  /** Waits for this call's turn, or fails when the budget runs out (or the session ends) first. */
  private turn(deadline: number, budgetMs: number): Promise<void> {
    if (this.closed) return Promise.reject(new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph session for ${this.root} has ended; retry to start a fresh one`));
    if (!this.running) {
      this.running = true;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          clearTimeout(expiry);
          resolve();
        },
        reject: (error) => {
          clearTimeout(expiry);
          reject(error);
        },
      };
      const expiry = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new GraphFailureError('GRAPH_TIMEOUT', `the call waited ${budgetMs / 1000} s (graphCallTimeoutSeconds) behind earlier calls on ${this.root} and was not run`));
      }, deadline - monotonicMs());
      this.waiters.push(waiter);
    });
  }

  private next(): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve();
    else this.running = false;
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph session for ${this.root} ended before this call ran; retry to start a fresh one`));
    this.onGone(this);
  }
}

function openFailure(e: unknown, settings: GraphSettings, root: string, timeoutMs: number): GraphFailureError {
  if (!(e instanceof UpstreamFailure)) return new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph upstream failed to start a session in ${root}: ${(e as Error).message}`);
  if (e.kind === 'not_installed') {
    return new GraphFailureError('GRAPH_NOT_INSTALLED', `the graph upstream command ${JSON.stringify(settings.command[0])} could not be started (${e.cause}); install it or point HERMES_MCP_GRAPH_COMMAND at it`);
  }
  if (e.kind === 'timeout') return new GraphFailureError('GRAPH_TIMEOUT', `the graph upstream did not finish its MCP handshake and tools/list within ${timeoutMs / 1000} s (graphStartupTimeoutSeconds) in ${root}`);
  return new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph upstream failed to start a session in ${root}: ${e.cause}${e.stderrNote()}`);
}
