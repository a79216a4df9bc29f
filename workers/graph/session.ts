import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { GraphCallResult, GraphFailureCode, GraphSettings, GraphToolDefinition } from '../../shared/worker-protocol/graph.js';
import { killTree, trackUpstream, treeOf, upstreamGone } from './tree.js';

// One resident stdio MCP session with the graph upstream, for one project root: the upstream runs
// with that root as its cwd and exactly the environment it is given (the SDK's default would pass a
// fixed whitelist and drop variables such as TTSC_GRAPH_BINARY). Opening it checks the surface once
// (tools/list must be exactly the configured tool); after that a call is one tools/call and nothing
// else. Calls on one session run one at a time, in arrival order; each has the call budget from its
// arrival, queueing included. A call past its budget kills the session (a stuck upstream must not
// hold the root), and a session whose upstream exits is closed for good: the pool opens a fresh one
// for the next call.

const CLIENT_INFO = { name: 'hermes-mcp-gateway', version: '0.1.0' };
const STDERR_KEEP = 2048;
/** Past our own deadline, so the SDK's request timer (60 s by default) never fires first. */
const SDK_TIMEOUT_SLACK_MS = 5000;

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
  private stderrTail = '';

  private constructor(
    readonly root: string,
    readonly tool: GraphToolDefinition,
    private readonly client: Client,
    private readonly transport: StdioClientTransport,
    private readonly settings: GraphSettings,
  ) {}

  get pid(): number | undefined {
    return this.transport.pid ?? undefined;
  }

  /** Spawns the upstream at `root`, connects and checks its surface, all within `timeoutMs`. */
  static async open(root: string, settings: GraphSettings, env: Record<string, string>, timeoutMs: number): Promise<UpstreamSession> {
    const [command, ...args] = settings.command;
    const transport = new StdioClientTransport({ command: command!, args, cwd: root, env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP)));
    const client = new Client(CLIENT_INFO);
    client.onerror = () => {}; // transport noise; a failure that matters rejects the request it hits
    const deadline = timer(timeoutMs);
    const connecting = client.connect(transport, { timeout: timeoutMs });
    // Spawned synchronously by connect() (no pid: the spawn failed, and connect rejects).
    const pid = transport.pid ?? undefined;
    if (pid) trackUpstream(pid);
    let session: UpstreamSession | undefined;
    try {
      await Promise.race([connecting, deadline.promise]);
      const { tools } = await Promise.race([client.listTools(undefined, { timeout: timeoutMs }), deadline.promise]);
      const names = tools.map((t) => t.name);
      const tool = tools[0];
      if (tools.length !== 1 || !tool || tool.name !== settings.tool) {
        throw new GraphFailureError(
          'GRAPH_SURFACE_MISMATCH',
          `the graph upstream must list exactly one tool, "${settings.tool}" (HERMES_MCP_GRAPH_TOOL); it listed ${names.length === 0 ? 'none' : names.map((n) => JSON.stringify(n)).join(', ')}`,
        );
      }
      session = new UpstreamSession(root, { name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown> }, client, transport, settings);
    } catch (e) {
      // Whatever failed, the half-open upstream goes with its whole tree.
      if (pid) killTree(treeOf(pid), pid);
      await client.close().catch(() => {});
      if (pid) upstreamGone(pid);
      throw openFailure(e, settings, root, timeoutMs, deadline.expired, stderr);
    } finally {
      deadline.cancel();
    }
    const opened = session;
    opened.stderrTail = stderr;
    transport.stderr?.on('data', (chunk: Buffer) => (opened.stderrTail = (opened.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEEP)));
    const gone = () => {
      if (pid) upstreamGone(pid);
      opened.ended();
    };
    client.onclose = gone;
    if (!transport.pid) gone(); // it exited between tools/list and here, before anyone listened
    return opened;
  }

  /** One tools/call, in turn; the budget counts from now. */
  async call(args: Record<string, unknown>): Promise<GraphCallResult> {
    const budgetMs = this.settings.callTimeoutMs;
    const deadline = Date.now() + budgetMs;
    await this.turn(deadline, budgetMs);
    const expiry = timer(deadline - Date.now());
    try {
      const result = await Promise.race([
        this.client.callTool({ name: this.tool.name, arguments: args }, { timeout: budgetMs + SDK_TIMEOUT_SLACK_MS }),
        expiry.promise,
      ]);
      return { content: (result.content ?? []) as GraphCallResult['content'], ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}), ...(result.isError ? { isError: true } : {}) };
    } catch (e) {
      if (expiry.expired) {
        this.kill();
        throw new GraphFailureError('GRAPH_TIMEOUT', `the graph upstream did not answer within ${budgetMs / 1000} s (graphCallTimeoutSeconds); its session for ${this.root} was killed and the next call starts a fresh one`);
      }
      if (this.closed) {
        throw new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph upstream for ${this.root} exited during the call; the next call starts a fresh session${this.stderrNote()}`);
      }
      // The upstream answered with a JSON-RPC error (or a result the SDK refused): the session stays.
      throw new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph upstream refused the call: ${(e as Error).message}`);
    } finally {
      expiry.cancel();
      this.next();
    }
  }

  /** An MCP ping within `timeoutMs` (readiness); false when the upstream does not answer. */
  async ping(timeoutMs: number): Promise<boolean> {
    try {
      await this.client.ping({ timeout: timeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  /** Polite close (eviction): stdin ends and the upstream gets a few seconds; then its tree is killed. */
  async close(): Promise<void> {
    const pid = this.pid; // read now: the transport forgets it once the upstream has exited
    const tree = pid ? treeOf(pid) : [];
    this.ended();
    await this.client.close().catch(() => {});
    killTree(tree, pid);
  }

  /** Immediate whole-tree kill (timeout, shutdown). */
  kill(): void {
    const pid = this.pid;
    if (pid) killTree(treeOf(pid), pid);
    this.ended();
    void this.client.close().catch(() => {});
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
      }, deadline - Date.now());
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

  private stderrNote(): string {
    const tail = this.stderrTail.trim().slice(-300);
    return tail ? ` (its stderr ended: ${tail})` : '';
  }
}

function timer(ms: number): { promise: Promise<never>; expired: boolean; cancel(): void } {
  let handle: NodeJS.Timeout | undefined;
  const state = {
    expired: false,
    promise: new Promise<never>((_, reject) => {
      handle = setTimeout(() => {
        state.expired = true;
        reject(new Error('deadline'));
      }, Math.max(0, ms));
    }),
    cancel: () => clearTimeout(handle),
  };
  state.promise.catch(() => {});
  return state;
}

function openFailure(e: unknown, settings: GraphSettings, root: string, timeoutMs: number, expired: boolean, stderr: string): GraphFailureError {
  if (e instanceof GraphFailureError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES') {
    return new GraphFailureError('GRAPH_NOT_INSTALLED', `the graph upstream command ${JSON.stringify(settings.command[0])} could not be started (${code}); install it or point HERMES_MCP_GRAPH_COMMAND at it`);
  }
  if (expired) return new GraphFailureError('GRAPH_TIMEOUT', `the graph upstream did not finish its MCP handshake and tools/list within ${timeoutMs / 1000} s (graphStartupTimeoutSeconds) in ${root}`);
  const tail = stderr.trim().slice(-300);
  return new GraphFailureError('GRAPH_UPSTREAM_FAILED', `the graph upstream failed to start a session in ${root}: ${(e as Error).message}${tail ? ` (its stderr ended: ${tail})` : ''}`);
}
