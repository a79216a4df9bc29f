import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../shared/package-root.js';
import { clearFidelityReport, fidelityTable } from './fidelity-report.js';
import { ensureExamplesVenv, ensureHermesVenv, ensureOracleVenv, HONCHO_ORACLE, needsExamplesPython, needsHonchoOracle, type HermesPin } from './hermes-venv.js';
import { knownDurations, parseRecorded, recordDurations } from './test-durations.js';
import { filesForPin, longestFirst, mirroredTests, runArguments, runStatus, testFiles } from './test-files.js';
import { ensurePackages, TEST_PACKAGES } from './test-prerequisites.js';
import { runUnits, writeRunUnits, type RunUnit } from './unit-groups.js';

// Runs the compiled test files with node's test runner, on whichever Node runs this script.
// The files are listed here rather than handed to `node --test` as a directory or a glob:
// Node 22 and 24 no longer expand a directory argument, and Node 20 does not expand globs.
//
//   node dist/scripts/run-tests.js                 every test
//   node dist/scripts/run-tests.js tools/jobs http only files whose path (under tests/) starts so
//   node dist/scripts/run-tests.js '!fidelity/'    every file but those whose path starts so
//   node dist/scripts/run-tests.js --hermes=newest fidelity/
//                                                  against one Hermes only (oldest, newest; both by default)
//   node dist/scripts/run-tests.js --unit          only the unit tests: those mirroring a product
//                                                  file (test-files.ts mirroredTests)
//   node dist/scripts/run-tests.js --conformance   the MCP conformance suites (conformance.ts) too,
//                                                  beside the test files: `npm test`
//   node dist/scripts/run-tests.js --prepare-only  installs what the selected files need (Debian
//                                                  packages, venvs), runs nothing
//
// The selected files run against the oldest supported Hermes, and those of them that compare with
// a real Hermes (test-files.ts, EVERY_HERMES) against the newest too (HERMES_TEST_PIN): one pass per
// Hermes, one after the other, each printing as it runs, then (with --conformance) the MCP
// conformance suites. Each pass starts its test files a group to a process (unit-groups.ts), the
// longest first (test-durations.ts).

const root = packageRoot();
const testsDir = join(root, 'dist', 'tests');
const FLAGS = ['--prepare-only', '--unit', '--conformance'];
const prepareOnly = process.argv.includes('--prepare-only');
const withConformance = process.argv.includes('--conformance');
let parsed: ReturnType<typeof runArguments>;
try {
  parsed = runArguments(process.argv.slice(2).filter((a) => !FLAGS.includes(a)));
} catch (err) {
  process.stderr.write(`run-tests: ${(err as Error).message}\n`);
  process.exit(2);
}
const { prefixes, pins } = parsed;
const mirrored = new Set(mirroredTests(root));
const unitOnly = process.argv.includes('--unit');
const selected = testFiles(testsDir, prefixes)
  .map((f) => relative(testsDir, f))
  .filter((f) => !unitOnly || mirrored.has(f));
// Each pass starts its processes longest first (a group lasts as long as its files together).
const passes = pins
  .map((pin) => {
    const files = filesForPin(selected, pin);
    const durations = knownDurations(root, pin);
    const units = new Map(runUnits(files, mirrored, durations).map((u): [string, RunUnit] => [u.group ?? u.files[0]!, u]));
    const length = (u: RunUnit) => u.files.reduce((sum, f) => sum + (durations[f] ?? Number.POSITIVE_INFINITY), 0);
    return { pin, files, units: longestFirst([...units.keys()], Object.fromEntries([...units].map(([k, u]) => [k, length(u)]))).map((k) => units.get(k)!) };
  })
  .filter((p) => p.files.length > 0);

if (passes.length === 0) {
  process.stderr.write(`run-tests: no test file under ${relative(root, testsDir)} matches ${process.argv.slice(2).join(' ')}\n`);
  process.exit(1);
}

// The Debian packages the tests run (test-prerequisites.ts, TEST_PACKAGES): chromium for the browser
// tests, nginx for the public-URL tests, curl for the docs checks, caddy and sqlite3 for the
// operations docs checks, ripgrep for the search_files fidelity cases. All are looked for before any
// test starts; the missing ones are installed together (as root on Debian) or named together with
// the one command that installs them.
try {
  ensurePackages(TEST_PACKAGES);
  // The Hermes tests run the real Hermes Agents, pinned, each from a project-local venv (hermes-venv.ts).
  for (const { pin, files } of passes) {
    const venv = ensureHermesVenv(root, undefined, pin);
    // The Honcho fidelity files compare with an oracle venv when the pin's package has no Honcho provider.
    if (needsHonchoOracle(venv, files)) ensureOracleVenv(HONCHO_ORACLE, root);
    // The Python examples run on the pinned MCP Python SDK, in its own project-local venv.
    if (needsExamplesPython(files)) ensureExamplesVenv(root);
  }
} catch (err) {
  process.stderr.write(`run-tests: ${(err as Error).message}\n`);
  process.exit(1);
}
if (prepareOnly) process.exit(0);

// TEST_CONCURRENCY processes at a time, one pass after the other (the conformance suites last).
// Most whole-gateway tests spend their time waiting on child processes, servers and timers: at
// three at a time the suite kept ~1.3 of two cores busy and took 17 min 16 s; at five it keeps
// ~1.7 busy and takes 14 min 28 s, with the same results. The mirrored unit tests (--unit) share
// a process per folder and wait less, so four run at a time. No --test-force-exit: it drops results
// still in a file's pipe to the runner on Node 20 and 22, so the counts differed between Nodes;
// instead each file ends on its own, and one that leaked a handle fails after a grace period
// (exit-watchdog.ts).
const TEST_CONCURRENCY = unitOnly ? 4 : 5;
const watchdog = pathToFileURL(join(testsDir, 'helpers', 'exit-watchdog.js')).href;
const reporter = process.stdout.isTTY ? 'spec' : 'tap';
const recorded = mkdtempSync(join(tmpdir(), 'hmcp-test-durations-'));
clearFidelityReport();

/** The signal that stopped the run, if one did. */
let stopped: NodeJS.Signals | undefined;
let current: ChildProcess | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopped = signal;
    current?.kill(signal);
  });
}

/** Runs one step (a pass, the conformance suites) to its end, printing as it runs: its exit status. */
async function step(title: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  process.stdout.write(`\n== ${title} ==\n`);
  // Spawned, not spawnSync: a SIGINT/SIGTERM sent to this script (npm test stopped by a signal to
  // its process) is passed on, and the pass stops its test files.
  current = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const [code, signal] = (await once(current, 'close')) as [number | null, NodeJS.Signals | null];
  return code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1);
}

let status = 0;
const failed = (code: number) => {
  if (code !== 0 && status === 0) status = code;
};
for (const { pin, files, units } of passes) {
  if (stopped) break;
  const counts = `${files.length} test files in ${units.length} processes, ${TEST_CONCURRENCY} at a time`;
  const title = passes.length > 1 ? `against Hermes ${pin}: ${counts}` : counts;
  const started = writeRunUnits(units, testsDir, mkdtempSync(join(recorded, `${pin}-`)));
  failed(
    await step(title, [`--import=${watchdog}`, join(root, 'dist', 'scripts', 'test-pass.js'), `--concurrency=${TEST_CONCURRENCY}`, `--reporter=${reporter}`, ...started], {
      HERMES_TEST_PIN: pin,
      HMCP_TEST_DURATIONS: join(recorded, `${pin}.jsonl`),
    }),
  );
}
// The conformance suites drive one gateway at a time with one client: they wait far more than they compute.
if (withConformance && !stopped) failed(await step('MCP conformance suites', [join(root, 'dist', 'scripts', 'conformance.js')], {}));
recordDurations(
  root,
  Object.fromEntries(passes.map(({ pin }) => [pin, parseRecorded(readText(join(recorded, `${pin}.jsonl`)), testsDir)])),
);
rmSync(recorded, { recursive: true, force: true });
// The fidelity suite's table (tests/fidelity), after the runner's own summaries.
process.stdout.write(fidelityTable());
process.exit(runStatus(status, stopped));

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
