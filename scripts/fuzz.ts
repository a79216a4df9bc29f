import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

// `npm run test:fuzz`: the fuzz tests (tests/fuzz/) long, with a random seed printed first so a
// failure can be replayed exactly: FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npm run test:fuzz.
// `npm test` runs the same files seeded and short (tests/fuzz/settings.ts).

const seed = process.env.FUZZ_SEED ?? String(randomInt(1, 2 ** 31 - 1));
const runs = process.env.FUZZ_RUNS ?? '200';
process.stdout.write(`fuzz: seed ${seed}, ${runs} runs per property (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run test:fuzz)\n`);

const dir = join(packageRoot(), 'dist', 'tests', 'fuzz');
const files = readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort().map((f) => join(dir, f));
// One file at a time: each starts its own gateway, and the machine running a long fuzz is shared.
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-timeout=3600000', ...files], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs },
});
if (r.status !== 0) process.stdout.write(`fuzz: FAILED with seed ${seed} (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run test:fuzz)\n`);
process.exit(r.status ?? 1);
