import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { join, relative } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { ensureExamplesVenv, ensureHermesVenv, ensureOracleVenv, HONCHO_ORACLE, linkVenvs, needsExamplesPython, needsHonchoOracle } from './hermes-venv.js';
import { nodeBinary } from './node-binary.js';
import { checkoutFiles, dependencyStamp, markInstalled, stageCheckout } from './staged-checkout.js';
import { runArguments, shareOut, testFiles } from './test-files.js';

// Runs the test suite on other Node.js major versions (CI: the current LTS lines), each in a
// staged copy of this checkout so the native modules (better-sqlite3, the subreaper addon) can be
// built against that version's headers without touching this checkout's node_modules.
//
//   node dist/scripts/test-on-node.js 24 22
//   node dist/scripts/test-on-node.js 24 -- jobs/pty   only the test files run-tests.js selects so
//   node dist/scripts/test-on-node.js 24 22 --split    the Nodes share the suite (test-files.ts shareOut)
//   node dist/scripts/test-on-node.js 24 -- --hermes=oldest jobs
//                                                      run-tests' own flags pass through
//
// The staged copies are prepared side by side (each install is mostly one compiler on one core, so
// two fill the two cores of a small CI machine), each install's output printed as one block when
// it ends; the suites then run one after another, since each already keeps both cores busy and
// running two at once would only make their timing-sensitive tests slower and flakier.

const root = packageRoot();
const children = new Set<ChildProcess>();

/** The test files (paths under dist/tests/) each of `count` Nodes runs: all selected ones each, or with --split its share (test-files.ts). */
function shares(prefixes: readonly string[], count: number, split: boolean): string[][] {
  const testsDir = join(root, 'dist', 'tests');
  const files = testFiles(testsDir, prefixes).map((f) => relative(testsDir, f));
  return split ? shareOut(files, count) : Array.from({ length: count }, () => files);
}

interface Staged {
  node: string;
  stage: string;
  env: NodeJS.ProcessEnv;
  version: string;
}

/**
 * Runs one command to its end in its own process group, and kills that group (by the child's pid)
 * when this script is interrupted: npm and the test runner have children of their own (node-gyp,
 * make, the compiler, the test files), and stopping the group is what Ctrl-C in a terminal does.
 */
function run(cmd: string, args: string[], options: SpawnOptions, capture: boolean): Promise<{ ok: boolean; output: string }> {
  const child = spawn(cmd, args, { ...options, detached: true, stdio: ['ignore', capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'] });
  children.add(child);
  let output = '';
  // Decoded as a stream, so a character split across two chunks stays whole.
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve) => {
    child.once('error', (e) => {
      children.delete(child);
      resolve({ ok: false, output: `${output}${cmd}: ${e.message}\n` });
    });
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ ok: code === 0, output: code === 0 ? output : `${output}${cmd} ${args.join(' ')} failed (${code ?? signal})\n` });
    });
  });
}

/** Ends this script, first stopping every process group it started that is still running. */
function finish(code: number): never {
  for (const child of children) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  process.exit(code);
}
// The groups are detached from this script's own, so a signal to it reaches them only through
// here: a closed terminal (SIGHUP) as well as Ctrl-C and a stop. (A SIGKILL of this script cannot
// be forwarded; its groups then run to their end.)
process.once('SIGINT', () => finish(130));
process.once('SIGTERM', () => finish(143));
process.once('SIGHUP', () => finish(129));

/** Stages a copy for `major` and installs it there; false (its output already printed) when that failed. */
async function prepare(major: number, files: readonly string[]): Promise<Staged | false> {
  try {
    return await install(major, files);
  } catch (e) {
    process.stdout.write(`\n== staged copy for Node.js ${major}: FAILED ==\n${e instanceof Error ? e.message : String(e)}\n`);
    return false;
  }
}

async function install(major: number, files: readonly string[]): Promise<Staged | false> {
  const started = Date.now();
  const binary = nodeBinary(major);
  const version = spawnSync(binary.node, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (!version) throw new Error(`${binary.node} --version printed nothing`);
  const dir = join(root, '.cache', `node-${major}`);
  const stage = join(dir, 'checkout');
  const stampFile = join(dir, 'checkout-deps.json');
  const stamp = dependencyStamp(root, version);
  const kept = stageCheckout(root, files, stage, stampFile, stamp);
  // node-gyp builds against this version's headers; npm's own scripts run on this node.
  const env = { ...process.env, PATH: `${binary.binDir}:${process.env.PATH ?? ''}`, npm_config_nodedir: binary.prefix };
  // A fresh stage installs with `npm ci`, exactly the lock (on CI, whose clone is always fresh, this
  // is the proof that the committed lock installs); a kept node_modules gets `npm install`, which
  // checks it against the lock without rebuilding what is already there.
  const r = await run('npm', [kept ? 'install' : 'ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: stage, env }, true);
  if (r.ok) markInstalled(stampFile, stamp);
  const seconds = Math.round((Date.now() - started) / 1000);
  const how = kept ? 'node_modules kept: same package.json, lock file and Node version; npm install' : 'node_modules installed afresh: npm ci';
  process.stdout.write(`\n== staged copy for ${version}: ${r.ok ? 'ready' : 'FAILED'} in ${seconds} s (${how}) ==\n${r.output}`);
  return r.ok && { node: binary.node, stage, env, version };
}

async function main(majors: readonly number[], runArgs: readonly string[], split: boolean): Promise<boolean> {
  const files = checkoutFiles(root);
  const { prefixes, pins } = runArguments(runArgs);
  const flags = runArgs.filter((a) => !prefixes.includes(a));
  // Once per version: two installs into one staged copy would race.
  const staged = await Promise.all([...new Set(majors)].map((major) => prepare(major, files)));
  const suites = shares(prefixes, staged.length, split);
  // The Hermes venvs are Python, the same whatever Node runs the suite: each staged copy links every
  // venv of this checkout (the pins', and the Honcho oracle's: hermes-venv.ts KNOWN_VENVS), the ones
  // the selection needs provisioned here first when missing, instead of pip-installing Hermes again
  // for every Node version.
  if (!staged.includes(false)) {
    for (const pin of pins) {
      const venv = ensureHermesVenv(root, undefined, pin);
      if (suites.some((suite) => needsHonchoOracle(venv, suite))) ensureOracleVenv(HONCHO_ORACLE, root);
    }
    if (suites.some(needsExamplesPython)) ensureExamplesVenv(root);
  }
  for (const [i, s] of staged.entries()) {
    if (s === false) return false;
    linkVenvs(root, s.stage);
    const suite = suites[i]!;
    // An empty share would hand run-tests no file, which it reads as every file.
    if (split && suite.length === 0) {
      process.stderr.write(`test-on-node: the selection is too small to share: ${s.version} would get no test file\n`);
      return false;
    }
    process.stdout.write(`\n== test suite on ${s.version}${split ? `: its share, ${suite.length} files` : ''} ==\n`);
    const r = await run(s.node, [join(s.stage, 'dist', 'scripts', 'run-tests.js'), ...flags, ...(split ? suite : prefixes)], { cwd: s.stage, env: s.env }, false);
    if (!r.ok) {
      process.stderr.write(`test-on-node: the suite on ${s.version} failed\n`);
      return false;
    }
  }
  return true;
}

const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const options = dashes < 0 ? args : args.slice(0, dashes);
const split = options.includes('--split');
const majors = options.filter((a) => a !== '--split').map(Number);
const runArgs = dashes < 0 ? [] : args.slice(dashes + 1);
if (majors.length === 0 || majors.some((m) => !Number.isInteger(m) || m < 20)) {
  process.stderr.write('usage: test-on-node.js MAJOR [MAJOR…] [--split] [-- [--hermes=PIN] TEST_PREFIX…]   e.g. 24 22, or 24 -- jobs\n');
  process.exit(2);
}
main(majors, runArgs, split).then(
  (ok) => finish(ok ? 0 : 1),
  (e: unknown) => {
    process.stderr.write(`test-on-node: ${e instanceof Error ? e.message : String(e)}\n`);
    finish(1);
  },
);
