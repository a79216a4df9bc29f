// In-process mutual exclusion by key: callers holding the same key run one after another, in call
// order; different keys never wait for each other. Several keys are taken in sorted order, so two
// callers locking overlapping sets cannot deadlock. (Cross-process exclusion is the caller's job:
// SQLite transactions for jobs, for instance.)

const locks = new Map<string, Promise<void>>();

export async function withKeyedLocks<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
  const ordered = [...new Set(keys)].sort();
  const releases: Array<() => void> = [];
  try {
    for (const key of ordered) {
      const previous = locks.get(key) ?? Promise.resolve();
      let release!: () => void;
      const current = new Promise<void>((r) => (release = r));
      const chained = previous.then(() => current);
      locks.set(key, chained);
      releases.push(() => {
        release();
        if (locks.get(key) === chained) locks.delete(key);
      });
      await previous;
    }
    return await fn();
  } finally {
    for (const r of releases.reverse()) r();
  }
}
