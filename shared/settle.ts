// Waiting for something with a bound. `Promise.race([work, delay(ms)])` leaves the delay's timer
// running after `work` settles: it holds the process (a gateway closing, a test file ending) open
// for the rest of the bound and does nothing. This one clears its timer either way.

/** Waits until `work` settles or `ms` pass, whichever is first; true when `work` settled (a rejection counts). */
export function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const done = work.then(
    () => true as const,
    () => true as const,
  );
  return Promise.race([done, bound]).finally(() => clearTimeout(timer));
}
