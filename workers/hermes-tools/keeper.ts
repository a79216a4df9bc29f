import type { HermesToolDefinition, HermesToolServerInfo, HermesToolsSettings, HermesToolsStatus } from '../../shared/worker-protocol/hermes-tools.js';
import { McpUpstream, timer, UpstreamFailure } from '../mcp-upstream/session.js';
import { Lane } from './lane.js';
import { monotonicMs } from '../../shared/clock.js';

// Keeps Hermes' tool server running: one stdio MCP session (../mcp-upstream/session.ts), opened at
// configuration and reopened after every exit or failed open, after a backoff that doubles per
// consecutive failure (restartMinMs … restartMaxMs) and resets once a call succeeds — so a server
// that crashes on start is not respawned in a tight loop, and one that crashed once is back
// quickly. The restart is eager: readiness reports a server that is down, not one that merely
// has not been asked for a while. A call that arrives while the backoff runs waits for the
// restart if it comes within the call's budget, and is refused at once otherwise.
//
// Every request to the server goes through one lane (lane.ts), pings included. A readiness probe
// while a call runs does not ping (the server cannot answer until the call ends): it reports the
// call it is busy with. A server that does not answer a ping within stuckPingMs (after a call it
// could not stop, or for a probe) is killed and restarted like one that exited.

export class RestartPending extends Error {}

export class UpstreamKeeper {
  /** The tools/list of the first session: the catalog froze it; later sessions serve the same names. */
  tools?: HermesToolDefinition[];
  /** The first session's serverInfo, if it gave one. */
  server?: HermesToolServerInfo;
  private upstream?: McpUpstream;
  private opening?: Promise<McpUpstream>;
  private restart?: { at: number; due: Promise<void>; timer: NodeJS.Timeout };
  private restarts = 0;
  private failures = 0;
  private lastFailure?: string;
  private stopped = false;
  /** Why the current session is being killed (a stuck server), for its restart's last failure. */
  private killedFor?: string;
  private probing?: Promise<boolean>;
  /** One request at a time on the session. */
  readonly lane = new Lane();

  constructor(
    private readonly settings: HermesToolsSettings,
    /** The tool server's complete environment. */
    private readonly env: Record<string, string>,
  ) {}

  /**
   * The live session: the current one, the one opening, or the one a restart due within
   * `withinMs` will open. A restart due later is refused with RestartPending; a failed open
   * rejects with its UpstreamFailure.
   */
  async session(withinMs: number): Promise<McpUpstream> {
    if (this.upstream && !this.upstream.closed) return this.upstream;
    if (this.opening) return this.opening;
    if (this.restart) {
      const waitMs = this.restart.at - monotonicMs();
      if (waitMs > withinMs) throw new RestartPending(`Hermes' tool server is restarting after ${this.lastFailure ?? 'a failure'}; the next attempt is in ${Math.ceil(waitMs / 1000)} s (restart ${this.restarts + 1})`);
      await this.restart.due;
      return this.session(withinMs - Math.max(0, waitMs));
    }
    return this.open();
  }

  /**
   * The first session's tools/list, waiting within `withinMs` through failed starts and their
   * restart backoff: one crash at boot must not cost the catalog its tools. A command that cannot
   * be spawned at all is not waited for. Past `withinMs` the last failure (or a RestartPending, or
   * a timeout) rejects.
   */
  async firstTools(withinMs: number): Promise<HermesToolDefinition[]> {
    const deadline = monotonicMs() + withinMs;
    for (;;) {
      if (this.tools) return this.tools;
      const left = deadline - monotonicMs();
      const expiry = timer(left);
      try {
        await Promise.race([this.session(left), expiry.promise]);
      } catch (e) {
        if (expiry.expired) throw new UpstreamFailure('timeout', `no tools/list within ${withinMs} ms`, '');
        // A restart due past the deadline (RestartPending) is not waited for: that would spin.
        if (this.stopped || e instanceof RestartPending || (e instanceof UpstreamFailure && e.kind === 'not_installed') || !this.restart || monotonicMs() >= deadline) throw e;
        // else: a failed start with its restart scheduled; wait for it (session() does) if it is due in time
      } finally {
        expiry.cancel();
      }
    }
  }

  /** Whether a session is up now. */
  get serving(): boolean {
    return this.upstream !== undefined && !this.upstream.closed;
  }

  /** A call succeeded: the server is healthy again, and the next failure starts the backoff over. */
  healthy(): void {
    this.failures = 0;
  }

  /** Milliseconds until the restart that is pending, if one is. */
  restartInMs(): number | undefined {
    return this.restart ? Math.max(0, this.restart.at - monotonicMs()) : undefined;
  }

  async status(pingTimeoutMs: number): Promise<HermesToolsStatus> {
    const base = { restarts: this.restarts, failures: this.failures, ...(this.lastFailure ? { lastFailure: this.lastFailure } : {}) };
    const upstream = this.upstream;
    if (upstream && !upstream.closed) {
      const busy = this.lane.busy;
      if (busy && busy.what !== 'ping') return { state: 'up', ...base, busy: { tool: busy.what, forMs: monotonicMs() - busy.since } };
      return { state: 'up', ...base, answersPing: await this.probe(upstream, pingTimeoutMs) };
    }
    const nextAttemptInMs = this.restartInMs();
    if (this.opening && this.tools === undefined && this.restarts === 0) return { state: 'starting', ...base };
    return { state: 'restarting', ...base, ...(nextAttemptInMs !== undefined ? { nextAttemptInMs } : {}) };
  }

  /**
   * After a call it may still be running (cancelled, timed out): true once the server answers a
   * ping within stuckPingMs; else it is killed (and restarted after its backoff) and false.
   * Called inside the lane, so nothing else is sent meanwhile.
   */
  async settle(upstream: McpUpstream, after: string): Promise<boolean> {
    if (upstream.closed) return false;
    const { stuckPingMs } = this.settings;
    if (await upstream.answers(stuckPingMs)) return true;
    if (!upstream.closed && this.upstream === upstream) {
      this.killedFor = `no answer to a ping within ${stuckPingMs} ms (hermesToolsStuckPingMs) after ${after}: killed as stuck`;
      void upstream.kill();
    }
    return false;
  }

  /** A probe's ping through the lane: its answer within `pingTimeoutMs`, while the lane waits up to stuckPingMs before killing. */
  private probe(upstream: McpUpstream, pingTimeoutMs: number): Promise<boolean> {
    this.probing ??= new Promise<boolean>((resolve) => {
      const quick = setTimeout(() => resolve(false), pingTimeoutMs);
      void this.lane
        .run('ping', () => this.settle(upstream, 'a readiness ping'))
        .then(resolve, () => resolve(false))
        .finally(() => {
          clearTimeout(quick);
          this.probing = undefined;
        });
    });
    return this.probing;
  }

  /** Kills the server's tree and never restarts it (the worker is going away). */
  stop(): void {
    this.stopped = true;
    if (this.restart) clearTimeout(this.restart.timer);
    this.restart = undefined;
    void this.upstream?.kill();
  }

  /** Opens a session now (the first one, or a restart). */
  open(): Promise<McpUpstream> {
    if (this.opening) return this.opening;
    const { command, cwd, openTimeoutMs } = this.settings;
    this.opening = McpUpstream.open({ command, cwd, env: this.env, timeoutMs: openTimeoutMs })
      .then(({ upstream, tools, server }) => {
        if (this.tools === undefined) {
          this.tools = tools;
          this.server = server;
        }
        if (this.stopped) {
          void upstream.kill();
          throw new UpstreamFailure('exited', 'the worker is stopping', '');
        }
        this.upstream = upstream;
        upstream.onGone = () => this.lost(upstream);
        if (upstream.closed) this.lost(upstream);
        return upstream;
      })
      .catch((e: unknown) => {
        if (!this.stopped) this.failed(e instanceof UpstreamFailure ? `a failed start (${e.kind}: ${e.cause}${e.stderrNote()})` : `a failed start (${String(e)})`);
        throw e;
      })
      .finally(() => (this.opening = undefined));
    return this.opening;
  }

  private lost(upstream: McpUpstream): void {
    if (this.upstream === upstream) this.upstream = undefined;
    if (this.stopped) return;
    const killed = this.killedFor;
    this.killedFor = undefined;
    if (killed) return this.failed(killed);
    const tail = upstream.stderr.trim().slice(-300);
    this.failed(`an exit${tail ? ` (its stderr ended: ${tail})` : ''}`);
  }

  private failed(what: string): void {
    this.failures++;
    this.lastFailure = what;
    if (this.restart) return;
    const delay = Math.min(this.settings.restartMinMs * 2 ** (this.failures - 1), this.settings.restartMaxMs);
    let resolveDue = () => {};
    const due = new Promise<void>((resolve) => (resolveDue = resolve));
    const timer = setTimeout(() => {
      this.restart = undefined;
      this.restarts++;
      void this.open().catch(() => {}); // a failed restart schedules the next one
      resolveDue();
    }, delay);
    this.restart = { at: monotonicMs() + delay, due, timer };
  }
}
