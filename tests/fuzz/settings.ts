import type { Parameters } from 'fast-check';

// One place for how hard the fuzz tests push. `npm test` runs them seeded and short, so a failure
// there reproduces exactly; `npm run test:fuzz` (scripts/fuzz.ts) picks a random seed, prints it,
// and raises the run count. Replay any failure with FUZZ_SEED=<seed> (and FUZZ_RUNS as printed).

const DEFAULT_SEED = 20260728;
const DEFAULT_RUNS = 12;

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

export const FUZZ_SEED = intFromEnv('FUZZ_SEED', DEFAULT_SEED);
export const FUZZ_RUNS = Math.max(1, intFromEnv('FUZZ_RUNS', DEFAULT_RUNS));

/** fast-check parameters for one property: `scale` multiplies the run count for cheap properties. */
export function fuzzParameters<T>(scale = 1): Parameters<T> {
  // Each property gets the same seed: a failure message names the seed and fast-check's own path,
  // which together replay that one counterexample.
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(FUZZ_RUNS * scale)), endOnFailure: true };
}
