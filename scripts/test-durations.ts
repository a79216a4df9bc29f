import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { HermesPin } from './hermes-venv.js';

// How long each test file ran, per Hermes pin: run-tests starts a pass's files longest first
// (test-files.ts longestFirst). Each run records what it measured in the checkout's git-ignored
// .cache/test-durations.json; the committed scripts/test-durations.json is what a fresh clone (CI)
// starts from. A file in neither is started first. Refresh the committed one from a whole run on a
// quiet machine: cp .cache/test-durations.json scripts/test-durations.json

/** Milliseconds per test file (its compiled path under tests/), per pin. */
export type DurationTable = Partial<Record<HermesPin, Record<string, number>>>;

export const COMMITTED_DURATIONS = join('scripts', 'test-durations.json');
export const MEASURED_DURATIONS = join('.cache', 'test-durations.json');

function readTable(file: string): DurationTable {
  if (!existsSync(file)) return {};
  try {
    const table = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof table === 'object' && table !== null && !Array.isArray(table) ? (table as DurationTable) : {};
  } catch {
    // An unreadable table only loses the order; the run goes on in name order.
    return {};
  }
}

/** The durations of `pin`'s files in checkout `root`: the committed ones, overridden by this checkout's measured ones. */
export function knownDurations(root: string, pin: HermesPin): Record<string, number> {
  return { ...readTable(join(root, COMMITTED_DURATIONS))[pin], ...readTable(join(root, MEASURED_DURATIONS))[pin] };
}

/**
 * Appends one test file's running time to the pass's record (HMCP_TEST_DURATIONS), if it keeps one:
 * written by tests/helpers/exit-watchdog.ts for a file in a process of its own, and by a test
 * group's module (unit-groups.ts) for each of its files; parseRecorded reads it.
 */
export function recordDuration(file: string, ms: number): void {
  const record = process.env.HMCP_TEST_DURATIONS;
  if (record) appendFileSync(record, `${JSON.stringify({ file, ms: Math.round(ms) })}\n`);
}

/**
 * The durations a pass's test files recorded (`lines`: what tests/helpers/exit-watchdog.ts appended,
 * one JSON object per line with the file's absolute path and its ms), by path under `testsDir`; a
 * line that does not parse, or names a file outside `testsDir`, is left out.
 */
export function parseRecorded(lines: string, testsDir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of lines.split('\n')) {
    if (!line.trim()) continue;
    try {
      const { file, ms } = JSON.parse(line) as { file?: unknown; ms?: unknown };
      if (typeof file !== 'string' || typeof ms !== 'number') continue;
      const rel = relative(testsDir, file);
      if (!rel.startsWith('..') && rel.endsWith('.test.js')) out[rel] = ms;
    } catch {
      // a line cut short by a file killed while writing it
    }
  }
  return out;
}

/** Merges `measured` (per pin) into checkout `root`'s measured table, in hundreds of ms. */
export function recordDurations(root: string, measured: DurationTable): void {
  const file = join(root, MEASURED_DURATIONS);
  const table = readTable(file);
  for (const [pin, files] of Object.entries(measured) as Array<[HermesPin, Record<string, number>]>) {
    const merged = { ...table[pin] };
    for (const [f, ms] of Object.entries(files)) merged[f] = Math.max(100, Math.round(ms / 100) * 100);
    table[pin] = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(table, null, 1)}\n`);
  renameSync(`${file}.tmp`, file);
}
