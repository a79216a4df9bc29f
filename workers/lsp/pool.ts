import type { LspLaunch, RunningServer } from '../../shared/worker-protocol/lsp.js';
import { reapZombies } from '../runtime/reap.js';
import { ServerSession, spawnedServerPids } from './session.js';

// The running language servers, one per (server name, workspace root): started lazily by the first
// query that needs one, reused by every later one, stopped after `idleMs` without a query (never
// while one runs), and all stopped on shutdown. Every change of the set is reported through
// `onChange`, which the worker forwards to the supervisor.

export class SessionPool {
  private readonly sessions = new Map<string, ServerSession>();
  private readonly idleTimers = new Map<ServerSession, NodeJS.Timeout>();

  constructor(private readonly onChange: (running: RunningServer[]) => void) {}

  /** The session for (launch.name, root), started if there is none; counted busy until release(). */
  acquire(launch: LspLaunch, root: string): ServerSession {
    const key = `${launch.name}\0${root}`;
    let session = this.sessions.get(key);
    if (!session || session.state === 'dead') {
      const fresh = new ServerSession(launch, root);
      session = fresh;
      this.sessions.set(key, fresh);
      fresh.on('ready', () => this.report());
      fresh.once('dead', () => {
        if (this.sessions.get(key) === fresh) this.sessions.delete(key);
        this.clearIdle(fresh);
        // Its helpers (tsserver, ...) re-parent to this worker, the namespace init: reap them.
        setTimeout(() => reapZombies(spawnedServerPids), 200);
        this.report();
      });
      this.report();
    }
    this.clearIdle(session);
    session.inflight++;
    session.lastUsedAt = Date.now();
    return session;
  }

  release(session: ServerSession, idleMs: number): void {
    session.inflight--;
    session.lastUsedAt = Date.now();
    if (session.inflight > 0 || session.state === 'dead') return;
    this.clearIdle(session);
    const timer = setTimeout(() => {
      this.idleTimers.delete(session);
      if (session.inflight === 0) void session.stop();
    }, idleMs);
    timer.unref();
    this.idleTimers.set(session, timer);
  }

  running(): RunningServer[] {
    return [...this.sessions.values()].map((s) => ({
      server: s.launch.name,
      root: s.root,
      pid: s.pid ?? null,
      state: s.state === 'ready' ? 'ready' : 'starting',
      startedAt: s.startedAt,
      lastUsedAt: s.lastUsedAt,
    }));
  }

  async stopAll(): Promise<void> {
    const all = [...this.sessions.values()];
    for (const s of all) this.clearIdle(s);
    await Promise.all(all.map((s) => s.stop()));
  }

  private clearIdle(session: ServerSession): void {
    const timer = this.idleTimers.get(session);
    if (timer) clearTimeout(timer);
    this.idleTimers.delete(session);
  }

  private report(): void {
    this.onChange(this.running());
  }
}
