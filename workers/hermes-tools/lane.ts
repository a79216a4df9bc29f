import { monotonicMs } from '../../shared/clock.js';

// One request at a time on Hermes' tool server. Its FastMCP server runs each Hermes tool as a
// synchronous function on its event loop, so while a call runs it reads nothing else (a ping waits
// for the call), and mcp 1.26 crashes when a request it has read but not started is cancelled —
// which is what a second outstanding call, or a timed-out ping, would become. So the worker queues
// here and the tool server only ever has one request of ours outstanding. A waiter whose signal
// aborts leaves the queue without the tool server ever seeing it.

export class Lane {
  private tail: Promise<void> = Promise.resolve();
  private holder?: { what: string; since: number };

  /** What holds the lane now (a tool name, or "ping"), and since when. */
  get busy(): { what: string; since: number } | undefined {
    return this.holder;
  }

  /** Runs `fn` once every earlier holder is done; rejects with the signal's reason if it aborts while waiting. */
  async run<T>(what: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.tail;
    let release = () => {};
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tail = previous.then(() => mine);
    try {
      await waitFor(previous, signal);
    } catch (e) {
      // Skipped: the ones after it wait only for the ones before it.
      void previous.then(release);
      throw e;
    }
    this.holder = { what, since: monotonicMs() };
    try {
      return await fn();
    } finally {
      this.holder = undefined;
      release();
    }
  }
}

function waitFor(turn: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return turn;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void turn.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
