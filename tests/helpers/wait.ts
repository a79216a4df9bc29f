// Bounded waits for tests: a hang becomes a failure with a message, never a stuck test file.

/** `promise`, or a rejection naming `what` after `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}

/**
 * Polls `check` every `everyMs` until it returns something truthy (which it resolves to), or
 * rejects naming `what` after `ms`. For real background effects (a process started, a file
 * written); expiry and deadlines are driven by a TestClock instead (tests/helpers/clock.ts).
 */
export async function waitFor<T>(check: () => T | Promise<T>, ms: number, what: string, everyMs = 20): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
