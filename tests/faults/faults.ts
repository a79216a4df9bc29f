import assert from 'node:assert/strict';
import { waitFor } from '../helpers/wait.js';
import { mulberry32 } from '../helpers/random.js';

// What every fault test shares: the fast/full switch, a seeded random source whose seed is printed
// (a failing run is replayed with FAULTS_SEED=<seed>), and the promises the gateway keeps after any
// fault: the caller got a bounded error naming the component, /healthz's in-flight counters are
// back to zero, and the next call works.

/** `npm run test:faults` sets FAULTS_FULL=1: every cell, every iteration. `npm test` runs the fast subset. */
export const FULL = process.env.FAULTS_FULL === '1';

/** A seeded PRNG (mulberry32): the same seed replays the same fault schedule. */
export function seededRandom(label: string): { seed: number; next(): number; int(below: number): number; pick<T>(items: readonly T[]): T } {
  const seed = process.env.FAULTS_SEED ? Number(process.env.FAULTS_SEED) : Math.floor(Math.random() * 2 ** 31);
  process.stdout.write(`# ${label}: FAULTS_SEED=${seed}${FULL ? ' FAULTS_FULL=1' : ''}\n`);
  const next = mulberry32(seed);
  return { seed, next, int: (below) => Math.floor(next() * below), pick: (items) => items[Math.floor(next() * items.length)]! };
}

export interface Health {
  inflight_requests: number;
  inflight_native_calls: number;
  zombie_children: number;
}

export async function healthz(baseUrl: string): Promise<Health> {
  return (await (await fetch(`${baseUrl}/healthz`)).json()) as Health;
}

/** Waits (bounded) until nothing is in flight: a fault must not leave a call counted forever. */
export async function countersSettle(baseUrl: string, ms = 5000): Promise<Health> {
  let last: Health | undefined;
  try {
    return await waitFor(async () => {
      last = await healthz(baseUrl);
      return last.inflight_requests === 0 && last.inflight_native_calls === 0 ? last : undefined;
    }, ms, 'inflight_requests and inflight_native_calls to return to 0');
  } catch (e) {
    throw new Error(`${(e as Error).message}; last /healthz: ${JSON.stringify(last)}`);
  }
}

export interface Outcome {
  isError: boolean;
  data: Record<string, unknown>;
  elapsedMs: number;
}

export async function timed(run: () => Promise<{ isError: boolean; data: Record<string, unknown> }>): Promise<Outcome> {
  const started = performance.now();
  const { isError, data } = await run();
  return { isError, data, elapsedMs: performance.now() - started };
}

/** The caller's promise: an error with the expected code, within the bound, naming the component. */
export function assertBoundedFailure(cell: string, outcome: Outcome, expect: { code: string | RegExp; names: RegExp; withinMs: number }): void {
  const shown = `${cell}: ${JSON.stringify(outcome.data)}`;
  assert.equal(outcome.isError, true, shown);
  if (typeof expect.code === 'string') assert.equal(outcome.data.error, expect.code, shown);
  else assert.match(String(outcome.data.error), expect.code, shown);
  // The component is named by the error's `component` field or its message, never only by a code.
  assert.match(`${String(outcome.data.component ?? '')} ${String(outcome.data.message ?? '')}`, expect.names, `${cell} does not name its component: ${shown}`);
  assert.ok(outcome.elapsedMs < expect.withinMs, `${cell} answered after ${outcome.elapsedMs} ms (bound ${expect.withinMs} ms)`);
}
