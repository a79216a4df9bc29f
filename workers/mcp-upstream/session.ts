import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { killTree, trackUpstream, treeOf, upstreamGone } from './tree.js';
import { packageVersion } from '../../shared/package-root.js';

// One stdio MCP session with an upstream server that a worker hosts (the graph upstream, Hermes'
// tool server): spawned without a shell, with exactly the environment it is given (the SDK's
// default would pass a fixed whitelist and drop variables the upstream needs), connected and asked
// for its tools once, all within one budget. After that a call is one tools/call and nothing else.
// A call past its budget either kills the upstream's whole tree (an upstream that serves one call
// at a time and is now stuck) or is cancelled on the wire, leaving the others running (an upstream
// that serves calls concurrently). Whatever ends the upstream, `onGone` runs once; a session never
// restarts itself: what to do next (a fresh session, a backoff) is the owner's policy.
//
// Failures carry a kind, not a message: each owner words them for its own operator (its settings'
// names, its error codes).

const CLIENT_INFO = { name: 'hermes-mcp-gateway', version: packageVersion() };
const STDERR_KEEP = 2048;
/** Past our own deadline, so the SDK's request timer (60 s by default) never fires first. */
const SDK_TIMEOUT_SLACK_MS = 5000;

/** not_installed: the command could not be spawned; timeout: past the budget; exited: the upstream went away; refused: it answered with a JSON-RPC error; failed: anything else. */
export type UpstreamFailureKind = 'not_installed' | 'timeout' | 'exited' | 'refused' | 'failed';

export class UpstreamFailure extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    /** The underlying cause (spawn errno, SDK message), for the owner's own wording. */
    override readonly cause: string,
    /** The last of the upstream's stderr, if it wrote any. */
    readonly stderr: string,
  ) {
    super(`${kind}: ${cause}`);
  }

  /** ` (its stderr ended: …)`, or nothing. */
  stderrNote(): string {
    const tail = this.stderr.trim().slice(-300);
    return tail ? ` (its stderr ended: ${tail})` : '';
  }
}

export type UpstreamTool = { name: string; description: string; inputSchema: Record<string, unknown> };
/** The upstream's MCP `serverInfo` from its initialize answer (an SDK server reports its SDK's name or version there, not its application's). */
export type UpstreamServerInfo = { name: string; version?: string };
export type UpstreamResult = { content: Array<{ type: string } & Record<string, unknown>>; structuredContent?: unknown; isError?: boolean };

export interface OpenOptions {
  /** argv, spawned without a shell. */
  command: readonly string[];
  cwd: string;
  /** The upstream's complete environment. */
  env: Record<string, string>;
  /** Spawn, MCP handshake and tools/list together. */
  timeoutMs: number;
}

export class McpUpstream {
  closed = false;
  /** Called once when the session ends, whatever ended it. */
  onGone: () => void = () => {};
  private stderrTail: string;

  private constructor(
    private readonly client: Client,
    private readonly transport: StdioClientTransport,
    stderr: string,
  ) {
    this.stderrTail = stderr;
  }

  get pid(): number | undefined {
    return this.transport.pid ?? undefined;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** Spawns the upstream, connects and lists its tools, all within `timeoutMs`; with the serverInfo it gave, if any. */
  static async open(options: OpenOptions): Promise<{ upstream: McpUpstream; tools: UpstreamTool[]; server?: UpstreamServerInfo }> {
    const [command, ...args] = options.command;
    const transport = new StdioClientTransport({ command: command!, args, cwd: options.cwd, env: options.env, stderr: 'pipe' });
    let stderr = '';
    const keepStderr = (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP));
    transport.stderr?.on('data', keepStderr);
    const client = new Client(CLIENT_INFO);
    client.onerror = () => {}; // transport noise; a failure that matters rejects the request it hits
    const deadline = timer(options.timeoutMs);
    const connecting = client.connect(transport, { timeout: options.timeoutMs });
    // Spawned synchronously by connect() (no pid: the spawn failed, and connect rejects).
    const pid = transport.pid ?? undefined;
    if (pid) trackUpstream(pid);
    let tools: UpstreamTool[];
    try {
      await Promise.race([connecting, deadline.promise]);
      const listed = await Promise.race([client.listTools(undefined, { timeout: options.timeoutMs }), deadline.promise]);
      tools = listed.tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as Record<string, unknown> }));
    } catch (e) {
      // Whatever failed, the half-open upstream goes with its whole tree.
      if (pid) killTree(treeOf(pid), pid);
      await client.close().catch(() => {});
      if (pid) upstreamGone(pid);
      const errno = (e as NodeJS.ErrnoException).code;
      if (errno === 'ENOENT' || errno === 'EACCES') throw new UpstreamFailure('not_installed', errno, stderr);
      throw new UpstreamFailure(deadline.expired ? 'timeout' : 'failed', (e as Error).message ?? String(e), stderr);
    } finally {
      deadline.cancel();
    }
    transport.stderr?.off('data', keepStderr);
    // What it writes from now on: an exit is explained by what came after its start-up, not by
    // start-up noise (Hermes' tool server logs a warning per unavailable tool as it starts).
    const upstream = new McpUpstream(client, transport, '');
    transport.stderr?.on('data', (chunk: Buffer) => (upstream.stderrTail = (upstream.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEEP)));
    const gone = () => {
      if (pid) upstreamGone(pid);
      upstream.ended();
    };
    client.onclose = gone;
    if (!transport.pid) gone(); // it exited between tools/list and here, before anyone listened
    const info = client.getServerVersion();
    const server = info && typeof info.name === 'string' ? { name: info.name, ...(typeof info.version === 'string' && info.version ? { version: info.version } : {}) } : undefined;
    return { upstream, tools, ...(server ? { server } : {}) };
  }

  /**
   * One tools/call within `budgetMs`. Past the budget the upstream is killed (`onTimeout: 'kill'`)
   * or the request is cancelled (`'cancel'`: MCP notifications/cancelled, the upstream keeps serving).
   * `signal` (the caller gone) cancels it the same way, and the call rejects with its reason.
   */
  async call(name: string, args: Record<string, unknown>, budgetMs: number, onTimeout: 'kill' | 'cancel', signal?: AbortSignal): Promise<UpstreamResult> {
    if (this.closed) throw new UpstreamFailure('exited', 'the session has ended', this.stderrTail);
    const expiry = timer(budgetMs);
    // The SDK sends notifications/cancelled for a request whose signal aborts.
    const cancel = new AbortController();
    const stop = () => cancel.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) stop();
    try {
      const result = await Promise.race([
        this.client.callTool({ name, arguments: args }, { timeout: budgetMs + SDK_TIMEOUT_SLACK_MS, signal: cancel.signal }),
        expiry.promise,
      ]);
      return { content: (result.content ?? []) as UpstreamResult['content'], ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}), ...(result.isError ? { isError: true } : {}) };
    } catch (e) {
      if (expiry.expired) {
        if (onTimeout === 'kill') this.kill();
        else cancel.abort(new Error(`no answer within ${budgetMs} ms`));
        throw new UpstreamFailure('timeout', `no answer within ${budgetMs} ms`, this.stderrTail);
      }
      if (signal?.aborted) throw signal.reason;
      if (this.closed) throw new UpstreamFailure('exited', (e as Error).message, this.stderrTail);
      // The upstream answered with a JSON-RPC error (or a result the SDK refused): the session stays.
      throw new UpstreamFailure('refused', (e as Error).message, this.stderrTail);
    } finally {
      expiry.cancel();
      signal?.removeEventListener('abort', stop);
    }
  }

  /** An MCP ping within `timeoutMs`; false when the upstream does not answer. */
  async ping(timeoutMs: number): Promise<boolean> {
    try {
      await this.client.ping({ timeout: timeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Whether the upstream answers an MCP ping within `withinMs`, without the SDK cancelling the
   * ping when it does not (its own timeout is later): for an upstream where cancelling a request
   * it has not started is harmful, whose owner kills it instead of waiting longer.
   */
  async answers(withinMs: number): Promise<boolean> {
    const expiry = timer(withinMs);
    try {
      return await Promise.race([this.client.ping({ timeout: withinMs + SDK_TIMEOUT_SLACK_MS }).then(() => true, () => false), expiry.promise.catch(() => false)]);
    } finally {
      expiry.cancel();
    }
  }

  /** Polite close: stdin ends and the upstream gets a few seconds (the SDK's); then its tree is killed. */
  async close(): Promise<void> {
    const pid = this.pid; // read now: the transport forgets it once the upstream has exited
    const tree = pid ? treeOf(pid) : [];
    this.ended();
    await this.client.close().catch(() => {});
    killTree(tree, pid);
  }

  /** Immediate whole-tree kill (timeout, surface refused, shutdown). */
  kill(): Promise<void> {
    const pid = this.pid;
    if (pid) killTree(treeOf(pid), pid);
    this.ended();
    return this.client.close().catch(() => {});
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.onGone();
  }
}

export function timer(ms: number): { promise: Promise<never>; expired: boolean; cancel(): void } {
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
