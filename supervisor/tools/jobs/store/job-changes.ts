// Wake-ups for job_status waits: a waiter sleeps until this process changes its job, the given
// time passes or its request is aborted. Changes other gateway processes make are seen by the
// waiter's own polling (the caller re-reads the database after every wake).

export class JobChanges {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Resolves on the next change of job `id` here, after `ms`, or on abort, whichever comes first. */
  nextOrDelay(id: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set();
      this.waiters.set(id, set);
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, Math.max(ms, 0));
      signal.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  /** Job `id` changed: wake everyone waiting on it. */
  notify(id: string): void {
    for (const wake of [...(this.waiters.get(id) ?? [])]) wake();
  }
}
