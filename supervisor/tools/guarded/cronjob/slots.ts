import { ErrorCode, GatewayError } from '../../../../shared/errors.js';

// At most `size` calls of Hermes' cron code at once (cronjobConcurrentCalls): each is a Python
// interpreter of its own, and they all wait for the one cron/.jobs.lock anyway, so a burst of
// calls queues here instead of starting a burst of interpreters. A queued call that is cancelled
// leaves the queue.

export class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new GatewayError(ErrorCode.CANCELLED, 'cronjob: cancelled before Hermes was called; nothing was written'));
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', onAbort);
        this.running++;
        resolve();
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new GatewayError(ErrorCode.CANCELLED, 'cronjob: cancelled while queued for Hermes; nothing was written'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(go);
    });
  }
}
