import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// A pass starts test files a group to a process: a process of its own per file cost each file
// Node's start, a new load of the modules it tests and a cold JIT (measured: 0.75 CPU-s before a
// whole-gateway file's first test, and its first gateway at 0.53 CPU-s against 0.16-0.27 for the
// ones after it in the same process). Each file of a group runs inside a suite named after it
// (node:test scopes a file's top-level hooks to that suite, and reports its tests under the file's
// path), one file after another in name order, so a group always runs the same files in the same
// order.
//   - The mirrored unit tests (test-files.ts mirroredTests) share a process per folder: their family
//     under tools/, else their first folder.
//   - The other tests (whole gateways, real Hermes, browsers) share one per folder as well, cut into
//     runs of at most GATEWAY_GROUP_MS by their measured durations, so a pass still starts its
//     longest work first and does not end on one long group; a file without a measured duration,
//     or longer than that alone, runs alone.
//
// A file that changes its process for good runs alone: becoming a child subreaper (PR_SET_CHILD_SUBREAPER)
// makes every later orphan of the process its child, which the tests of the workers' cleanup, run
// in the same process, would then find as their own (tests/scripts/unit-groups.test.ts checks that
// every test calling becomeSubreaper is listed here).
export const OWN_PROCESS: readonly string[] = [
  'platform/spawning/orphan-reaper.test.js',
  'platform/spawning/orphans-healthz.test.js',
  'shared/subreaper.test.js',
  'workers/mcp-upstream/tree.test.js',
  'workers/runtime/reap.test.js',
];

/** The most measured time (ms) a group of whole-gateway files is given. */
export const GATEWAY_GROUP_MS = 60_000;

/** What a pass starts as one process: a group of tests sharing one (`group` names it: `core`, `gateway/tools/jobs#2`), or a single test file. */
export interface RunUnit {
  group?: string;
  /** Paths under tests/, in the order they run. */
  files: string[];
}

/** The folder a test is grouped by: its family under tools/ (`tools/files`), else its first folder (`platform`, `shared`). */
export function groupOf(file: string): string {
  const parts = file.split('/');
  return (parts[0] === 'tools' && parts.length > 2 ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * `files` (paths under tests/) as a pass starts them: the unit tests among them (`unit`) in groups
 * by folder; every other file in groups by folder of at most GATEWAY_GROUP_MS by `durations` (ms,
 * per file), or alone.
 */
export function runUnits(files: readonly string[], unit: ReadonlySet<string>, durations: Readonly<Record<string, number>> = {}): RunUnit[] {
  const groups = new Map<string, Array<{ files: string[]; ms: number }>>();
  const alone: RunUnit[] = [];
  for (const f of [...files].sort()) {
    const isUnit = unit.has(f);
    const ms = durations[f];
    if (OWN_PROCESS.includes(f) || (!isUnit && (ms === undefined || ms >= GATEWAY_GROUP_MS))) {
      alone.push({ files: [f] });
      continue;
    }
    const g = isUnit ? groupOf(f) : `gateway/${groupOf(f)}`;
    const chunks = groups.get(g) ?? [];
    groups.set(g, chunks);
    // A unit-test folder is one group whatever its length.
    const cost = isUnit ? 0 : (ms ?? 0);
    let last = chunks.at(-1);
    if (!last || last.ms + cost > GATEWAY_GROUP_MS) chunks.push((last = { files: [], ms: 0 }));
    last.files.push(f);
    last.ms += cost;
  }
  const grouped = [...groups].flatMap(([g, chunks]) => chunks.map((c, i) => ({ group: chunks.length > 1 ? `${g}#${i + 1}` : g, files: c.files })));
  return [...grouped, ...alone];
}

/**
 * The module that runs a group's files (absolute paths, with their names under tests/) in one
 * process, each in a suite of its own. With HMCP_TEST_DURATIONS set, each file appends its own
 * running time there, as a file alone does through tests/helpers/exit-watchdog.ts.
 */
export function groupModule(members: ReadonlyArray<{ name: string; path: string }>): string {
  const list = JSON.stringify(members.map((m) => ({ name: m.name, path: m.path, url: pathToFileURL(m.path).href })), null, 1);
  // node:test runs each describe body as it is declared, so the files' imports start together; a
  // test or hook a file declares at its top level, after an await too, belongs to its own suite.
  // (A helper module's top-level hook would belong to the first file that imported it: helpers
  // have none, tests/scripts/unit-groups.test.ts checks.)
  return `import { after, before, describe } from 'node:test';
import { recordDuration } from ${JSON.stringify(new URL('./test-durations.js', import.meta.url).href)};
for (const { name, path, url } of ${list}) {
  describe(name, async () => {
    let started = 0;
    before(() => (started = performance.now()));
    after(() => recordDuration(path, performance.now() - started));
    await import(url);
  });
}
`;
}

/**
 * The files a pass hands to node's runner for `units`: a group's module written into `dir`
 * (`unit-<folder>.test.mjs`, `gateway-<folder>[-<n>].test.mjs`), a single file's own path; `testsDir` is where the tests' paths lie.
 */
export function writeRunUnits(units: readonly RunUnit[], testsDir: string, dir: string): string[] {
  return units.map((u) => {
    if (u.group === undefined) return join(testsDir, u.files[0]!);
    const file = join(dir, `${u.group.startsWith('gateway/') ? '' : 'unit-'}${u.group.replace(/[/#]/g, '-')}.test.mjs`);
    writeFileSync(file, groupModule(u.files.map((name) => ({ name, path: join(testsDir, name) }))));
    return file;
  });
}
