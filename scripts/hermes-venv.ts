import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { isExecutable } from './test-prerequisites.js';

// The real Hermes Agent the tests run against: installed from PyPI into a project-local,
// git-ignored virtual environment (.cache/hermes-venv) from one pinned requirement file
// (tests/hermes/requirements.txt), made with the machine's own `python3 -m venv`. It is reused while
// the requirement file is unchanged (its hash is stamped into the venv); a changed pin rebuilds it.
// The stamp is written last, so an interrupted install leaves a venv without one, which the next run
// removes and builds again rather than taking it for a good one. An index that cannot be reached
// fails at once with the exact command to run by hand — never a skipped test.

export const REQUIREMENTS = join('tests', 'hermes', 'requirements.txt');
export const VENV = join('.cache', 'hermes-venv');
const STAMP = '.requirements-sha256';

export interface HermesVenv {
  /** The venv's interpreter: HERMES_AGENT_PYTHON for a gateway under test. */
  python: string;
  /** The pinned Hermes version (`hermes-agent==X.Y.Z` in the requirement file). */
  version: string;
  dir: string;
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

/** The `hermes-agent==X.Y.Z` pin of a requirement file's text. */
export function pinnedVersion(requirements: string): string {
  const pin = /^hermes-agent(?:\[[^\]]*\])?==([0-9][0-9A-Za-z.]*)\s*$/m.exec(requirements);
  if (!pin) throw new Error(`${REQUIREMENTS} must pin Hermes exactly (a line hermes-agent[extras]==X.Y.Z)`);
  return pin[1]!;
}

/** The commands that build the venv by hand, as the failure message gives them. */
export function manualCommands(root: string, python: string): string {
  const venv = join(root, VENV);
  return `${python} -m venv ${venv} && ${join(venv, 'bin', 'pip')} install -r ${join(root, REQUIREMENTS)}`;
}

/** The Hermes venv, provisioned first when it is missing or its pin changed. Throws with the exact instruction otherwise. */
export function ensureHermesVenv(root: string = packageRoot(), host: VenvHost = realHost): HermesVenv {
  const requirements = readFileSync(join(root, REQUIREMENTS), 'utf8');
  const version = pinnedVersion(requirements);
  const hash = createHash('sha256').update(requirements).digest('hex');
  const dir = join(root, VENV);
  const python = join(dir, 'bin', 'python');
  const stamp = join(dir, STAMP);
  const ready = () => existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash && isExecutable(python);
  if (ready()) return { python, version, dir };
  // One builder at a time: test files that run side by side (or two test runs) would otherwise
  // each empty the directory and install into it at once. A caller that finds the lock held by a
  // live process waits for it, then uses what it built; a lock whose process is gone is taken over.
  const release = lockVenv(`${dir}.lock`);
  try {
    if (ready()) return { python, version, dir };
    return buildVenv(root, host, { dir, python, stamp, hash, version });
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

function buildVenv(root: string, host: VenvHost, v: { dir: string; python: string; stamp: string; hash: string; version: string }): HermesVenv {
  const { dir, python, stamp, hash, version } = v;
  const python3 = host.python3();
  if (!python3) throw new Error(`hermes-venv: the Hermes tests need Python 3.11+ (python3) to install hermes-agent==${version}; install Debian's python3 and python3-venv (apt-get install -y python3 python3-venv)`);
  // Built where it stays (a venv's scripts name its own path), from empty.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  host.say(`hermes-venv: installing hermes-agent==${version} into ${VENV} (${REQUIREMENTS} changed or no venv yet)`);
  if (host.run(python3, ['-m', 'venv', dir]) !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`hermes-venv: ${python3} -m venv failed (Debian: apt-get install -y python3-venv); then run: ${manualCommands(root, python3)}`);
  }
  // Few retries and a short timeout: an index that cannot be reached should fail the run at once.
  if (host.run(join(dir, 'bin', 'pip'), ['install', '--quiet', '--retries', '1', '--timeout', '20', '-r', join(root, REQUIREMENTS)]) !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`hermes-venv: pip could not install ${REQUIREMENTS} (is the package index reachable?); run: ${manualCommands(root, python3)}`);
  }
  writeFileSync(stamp, `${hash}\n`);
  host.say(`hermes-venv: ready (${python})`);
  return { python, version, dir };
}
