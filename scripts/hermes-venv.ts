import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash && isExecutable(python)) return { python, version, dir };

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
