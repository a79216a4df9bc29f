import type { GraphSessionStatus, GraphSettings } from '../../shared/worker-protocol/graph.js';
import { GraphFailureError, UpstreamSession } from './session.js';

// The resident upstream sessions, one per project root, at most `maxSessions` (opening ones
// included). A root's session is reused for every call on it; when a new root needs room the least
// recently used idle session is closed. A session in use (a call running or queued, a probe) is
// never evicted: when every session is in use the new root is refused with GRAPH_BUSY instead of
// waiting for one. The schema root's session is the last one evicted, since readiness reads it.
//
// A session is claimed synchronously (`users`) the moment it is handed out, before the caller's
// continuation runs: several requests can arrive in one frame batch, and the next request's
// eviction must already see the first one's claim.

interface Opening {
  promise: Promise<UpstreamSession>;
  /** Requests waiting for this session; each holds a claim once it opens. */
  claims: number;
}

export class SessionPool {
  private readonly sessions = new Map<string, UpstreamSession>();
  private readonly opening = new Map<string, Opening>();
  /** The root readiness probes (the schema request's and the probes' cwd). */
  schemaRoot?: string;

  constructor(
    private readonly settings: GraphSettings,
    /** The upstream's complete environment. */
    private readonly env: Record<string, string>,
    private readonly openTimeoutMs: number,
  ) {}

  /** The session for `root`, opened if need be, claimed for the caller (release() it when done). */
  acquire(root: string): Promise<UpstreamSession> {
    const resident = this.sessions.get(root);
    if (resident && !resident.closed) {
      resident.users++;
      return Promise.resolve(resident);
    }
    const pending = this.opening.get(root);
    if (pending) {
      pending.claims++;
      return pending.promise;
    }
    try {
      this.makeRoom();
    } catch (e) {
      return Promise.reject(e);
    }
    const entry: Opening = { claims: 1, promise: Promise.resolve() as unknown as Promise<UpstreamSession> };
    entry.promise = UpstreamSession.open(root, this.settings, this.env, this.openTimeoutMs)
      .then((session) => {
        session.users += entry.claims;
        session.onGone = (gone) => {
          if (this.sessions.get(gone.root) === gone) this.sessions.delete(gone.root);
        };
        if (!session.closed) this.sessions.set(root, session);
        return session;
      })
      .finally(() => this.opening.delete(root));
    this.opening.set(root, entry);
    return entry.promise;
  }

  /** The resident session for `root`, if any, without claiming or opening it. */
  peek(root: string): UpstreamSession | undefined {
    const session = this.sessions.get(root);
    return session && !session.closed ? session : undefined;
  }

  isOpening(root: string): boolean {
    return this.opening.has(root);
  }

  release(session: UpstreamSession): void {
    session.users = Math.max(0, session.users - 1);
    session.lastUsedAt = Date.now();
  }

  status(): GraphSessionStatus[] {
    return [...this.sessions.values()].map((s) => ({ root: s.root, busy: s.users > 0, calls: s.users, lastUsedAt: s.lastUsedAt }));
  }

  /** Every session killed at once (the worker is going away; nothing is worth a polite wait). */
  killAll(): void {
    for (const session of this.sessions.values()) session.kill();
    this.sessions.clear();
  }

  private makeRoom(): void {
    while (this.sessions.size + this.opening.size >= this.settings.maxSessions) {
      const victim = this.evictionCandidate();
      if (!victim) {
        throw new GraphFailureError(
          'GRAPH_BUSY',
          `all ${this.settings.maxSessions} graph sessions (graphMaxSessions) are busy with calls on other projects; retry when one finishes`,
        );
      }
      this.sessions.delete(victim.root);
      void victim.close();
    }
  }

  /** The least recently used idle session, the schema root's only when no other is idle. */
  private evictionCandidate(): UpstreamSession | undefined {
    const idle = [...this.sessions.values()].filter((s) => s.users === 0).sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    return idle.find((s) => s.root !== this.schemaRoot) ?? idle[0];
  }
}
