import { zombieChildrenOf } from '../../../shared/proc.js';
import { subreaperAddon } from '../../../shared/subreaper.js';

// The gateway is a child subreaper (bin/gateway.ts), so every orphan of a worker's tree (a worker whose
// launcher died before waiting for it, a setsid escapee the fallback sweep killed) is re-parented to
// this process and, once dead, stays a zombie until this process waits for it. Zombies hold a pid
// each and count against the unit's TasksMax, so a long-running gateway must reap them. libuv only
// waits for the children it spawned, and waitpid(-1) would steal their exit statuses; so adopted
// zombies are found in /proc and reaped one pid at a time (the addon's waitpid(pid, WNOHANG)).
//
// Which zombies are not libuv's: on every SIGCHLD libuv waits for all of its own children, and the
// SIGCHLD is handled in the event loop's poll phase, which runs between any two timer callbacks. A
// zombie child seen by two consecutive sweeps (same pid, same start time) has outlived such a pass,
// so libuv does not own it and reaping it takes nothing from a ChildProcess 'exit' event.

export class OrphanReaper {
  /** Zombies seen by the previous sweep: pid -> start time. */
  private candidates = new Map<number, string>();
  private reapedTotal = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly parent: number = process.pid,
    private readonly reap: (pid: number) => number = (pid) => subreaperAddon()?.reap(pid) ?? -1,
  ) {}

  /** Sweeps every `intervalMs` until stop(); never keeps the process alive by itself. */
  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(() => this.sweep(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One pass: reaps the zombies the previous pass saw too; returns how many it reaped. */
  sweep(): number {
    const next = new Map<number, string>();
    let reaped = 0;
    for (const zombie of zombieChildrenOf(this.parent)) {
      if (this.candidates.get(zombie.pid) === zombie.startTime) {
        if (this.reap(zombie.pid) === 1) reaped++;
      } else {
        next.set(zombie.pid, zombie.startTime);
      }
    }
    this.candidates = next;
    this.reapedTotal += reaped;
    return reaped;
  }

  /** Children of the gateway in state Z right now (a cheap /proc read, for /healthz). */
  zombieCount(): number {
    return zombieChildrenOf(this.parent).length;
  }

  /** Adopted zombies reaped since start. */
  get reaped(): number {
    return this.reapedTotal;
  }
}
