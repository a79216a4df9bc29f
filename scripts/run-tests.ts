import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { constants as osConstants } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../shared/package-root.js';
import { clearFidelityReport, fidelityTable } from './fidelity-report.js';
import { ensureExamplesVenv, ensureHermesVenv, ensureOracleVenv, HONCHO_ORACLE, needsExamplesPython, needsHonchoOracle, type HermesPin } from './hermes-venv.js';
import { filesForPin, runArguments, runStatus, testFiles } from './test-files.js';
import { ensurePackages, TEST_PACKAGES } from './test-prerequisites.js';

// Runs the compiled test files with node's test runner, on whichever Node runs this script.
// The files are listed here rather than handed to `node --test` as a directory or a glob:
// Node 22 and 24 no longer expand a directory argument, and Node 20 does not expand globs.
//
//   node dist/scripts/run-tests.js                 every test
//   node dist/scripts/run-tests.js tools/jobs http only files whose path (under tests/) starts so
//   node dist/scripts/run-tests.js '!fidelity/'    every file but those whose path starts so
//   node dist/scripts/run-tests.js --hermes=newest fidelity/
//                                                  against one Hermes only (oldest, newest; both by default)
//   node dist/scripts/run-tests.js --prepare-only  installs what the selected files need (Debian
//                                                  packages, venvs), runs nothing: `npm test` does this
//                                                  first, so what is missing is named before conformance
//
// The selected files run against the oldest supported Hermes, then those of them that compare with
// a real Hermes (test-files.ts, EVERY_HERMES) run again against the newest (HERMES_TEST_PIN).

const root = packageRoot();
const testsDir = join(root, 'dist', 'tests');
const prepareOnly = process.argv.includes('--prepare-only');
let parsed: ReturnType<typeof runArguments>;
try {
  parsed = runArguments(process.argv.slice(2).filter((a) => a !== '--prepare-only'));
} catch (err) {
  process.stderr.write(`run-tests: ${(err as Error).message}\n`);
  process.exit(2);
}
const { prefixes, pins } = parsed;
const files = testFiles(testsDir, prefixes);
const passes = pins.map((pin) => ({ pin, files: filesForPin(files.map((f) => relative(testsDir, f)), pin).map((f) => join(testsDir, f)) })).filter((p) => p.files.length > 0);

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
    if (needsHonchoOracle(venv, files.map((f) => relative(testsDir, f)))) ensureOracleVenv(HONCHO_ORACLE, root);
    // The Python examples run on the pinned MCP Python SDK, in its own project-local venv.
    if (needsExamplesPython(files.map((f) => relative(testsDir, f)))) ensureExamplesVenv(root);
  }
} catch (err) {
  process.stderr.write(`run-tests: ${(err as Error).message}\n`);
  process.exit(1);
}
if (prepareOnly) process.exit(0);

// Three files at a time on two cores: most tests spend their time waiting on child processes,
// servers and timers (the whole suite uses ~1.3 cores at 2 files at a time), and 3 took the suite
// from 3m43s to 2m56s here with every test passing. No --test-force-exit: it drops results still in
// a file's pipe to the runner on Node 20 and 22, so the counts differed between Nodes; instead each
// file ends on its own, and one that leaked a handle fails after a grace period (exit-watchdog.ts).
const watchdog = pathToFileURL(join(testsDir, 'helpers', 'exit-watchdog.js')).href;
clearFidelityReport();
let current: ChildProcess | undefined;
/** The signal that stopped the run, if one did. */
let stopped: NodeJS.Signals | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopped = signal;
    current?.kill(signal);
  });
}
let status = 0;
for (const pass of passes) {
  if (stopped) break;
  if (passes.length > 1) process.stdout.write(`\n== against Hermes ${pass.pin}: ${pass.files.length} test files ==\n`);
  const code = await runPass(pass.pin, pass.files);
  if (code !== 0 && status === 0) status = code;
}
// The fidelity suite's table (tests/fidelity), after the runner's own summaries.
process.stdout.write(fidelityTable());
process.exit(runStatus(status, stopped));

/** One run of node's test runner over `list`, against Hermes `pin`: its exit status. */
async function runPass(pin: HermesPin, list: string[]): Promise<number> {
  // Spawned, not spawnSync: a SIGINT/SIGTERM sent to this script (npm test stopped by a signal to
  // its process) is passed on to the runner, which stops its test files; a synchronous spawn could not
  // handle the signal, and the runner went on alone under init.
  const runner = spawn(process.execPath, ['--test', '--test-concurrency=3', `--import=${watchdog}`, ...list], { cwd: root, stdio: 'inherit', env: { ...process.env, HERMES_TEST_PIN: pin } });
  current = runner;
  const [code, signal] = (await once(runner, 'exit')) as [number | null, NodeJS.Signals | null];
  return code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1);
}
