import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// The Debian packages the tests run for real, and the one way the test command makes sure of them:
// present, it only looks; missing, as root on Debian it installs them from the machine's own apt
// sources (saying so), all in one apt-get install; anywhere else it fails naming every missing
// package at once with the one install command — never a skip, and nothing is ever fetched from
// anywhere else (playwright-core downloads no browser).
//
// - chromium: the browser tests' real headless browser (driven by playwright-core);
// - nginx: the public-URL tests' reverse proxy, run as each test's own throw-away instance (its
//   own prefix, config and ephemeral loopback port, never the system service or its default site);
// - curl: the docs checks run the curl lines of the README and docs/ against a test gateway;
// - caddy: the reverse-proxy docs check serves a gateway through the documented Caddyfile, as its own
//   throw-away instance like nginx;
// - sqlite3: the backup docs check runs the documented `sqlite3 .backup` line;
// - ripgrep: the search_files fidelity cases run Hermes' search as it runs on a host with ripgrep
//   installed (and, by the driver's choice, as on one without).

export interface DebianPackage {
  /** The Debian package, and the executable it installs (looked for at `path`, else on PATH). */
  name: string;
  executable: string;
  path: string;
  /** Who needs it, for the failure message. */
  neededBy: string;
}

export const CHROMIUM: DebianPackage = { name: 'chromium', executable: 'chromium', path: '/usr/bin/chromium', neededBy: 'The browser tests' };
export const NGINX: DebianPackage = { name: 'nginx', executable: 'nginx', path: '/usr/sbin/nginx', neededBy: 'The public-URL tests' };
export const CURL: DebianPackage = { name: 'curl', executable: 'curl', path: '/usr/bin/curl', neededBy: 'The docs checks' };
export const CADDY: DebianPackage = { name: 'caddy', executable: 'caddy', path: '/usr/bin/caddy', neededBy: 'The reverse-proxy docs check' };
export const SQLITE3: DebianPackage = { name: 'sqlite3', executable: 'sqlite3', path: '/usr/bin/sqlite3', neededBy: 'The backup docs check' };
export const RIPGREP: DebianPackage = { name: 'ripgrep', executable: 'rg', path: '/usr/bin/rg', neededBy: 'The search_files fidelity cases' };

/** The packages the test command makes sure of before any test starts (run-tests.ts). */
export const TEST_PACKAGES: readonly DebianPackage[] = [CHROMIUM, NGINX, CURL, CADDY, SQLITE3, RIPGREP];

/** The one command that installs `pkgs` on Debian, run as root. */
export function installCommand(...pkgs: readonly DebianPackage[]): string {
  return `apt-get update && apt-get install -y --no-install-recommends ${pkgs.map((p) => p.name).join(' ')}`;
}

/** Whether `path` is there and executable by this process. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The package's executable at its Debian path, else on `PATH`, else undefined. */
export function executablePath(pkg: DebianPackage, path = process.env.PATH ?? ''): string | undefined {
  if (isExecutable(pkg.path)) return pkg.path;
  return path.split(delimiter).filter(Boolean).map((dir) => join(dir, pkg.executable)).find(isExecutable);
}

export interface PrerequisiteHost {
  find(pkg: DebianPackage): string | undefined;
  /** Root on Debian with apt-get: allowed to install the package itself. */
  canApt(): boolean;
  /** Runs one command (stdio shown to the user); its exit status. */
  run(command: string, args: string[]): number;
  say(line: string): void;
}

const realHost: PrerequisiteHost = {
  find: (pkg) => executablePath(pkg),
  canApt: () => process.getuid?.() === 0 && existsSync('/etc/debian_version') && executablePath({ name: 'apt', executable: 'apt-get', path: '/usr/bin/apt-get', neededBy: '' }) !== undefined,
  // noninteractive: a package's questions would otherwise wait on a terminal nobody watches.
  run: (command, args) => spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status ?? 1,
  say: (line) => process.stderr.write(`${line}\n`),
};

/**
 * Each package's executable, by package name. Every package is looked for first; those missing are
 * installed together when we may (one apt-get update, one apt-get install naming all of them), so
 * one round settles them all. Otherwise it throws once, naming every missing package, who needs
 * it, and the one command that installs them all (as root, or through sudo).
 */
export function ensurePackages(pkgs: readonly DebianPackage[], host: PrerequisiteHost = realHost): Map<string, string> {
  const found = new Map<string, string>();
  const missing: DebianPackage[] = [];
  for (const pkg of pkgs) {
    const path = host.find(pkg);
    if (path) found.set(pkg.name, path);
    else missing.push(pkg);
  }
  if (missing.length === 0) return found;
  const command = installCommand(...missing);
  const names = missing.map((p) => p.name).join(', ');
  if (!host.canApt()) {
    const needs = missing.map((p) => `${p.name} (${p.neededBy.charAt(0).toLowerCase()}${p.neededBy.slice(1)})`).join(', ');
    throw new Error(
      `the tests run Debian packages that are not installed: ${needs}. Install ${missing.length === 1 ? 'it' : missing.length === 2 ? 'both' : `all ${missing.length}`} with one command, as root: ${command}` +
        ` (or through sudo: sudo sh -c '${command}'), then run the tests again; run as root on Debian, the test command installs them itself.`,
    );
  }
  host.say(`test-prerequisites: missing ${names}; installing Debian's package${missing.length === 1 ? '' : 's'}: ${command}`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...missing.map((p) => p.name)]]) {
    const status = host.run('apt-get', args);
    if (status !== 0) throw new Error(`test-prerequisites: apt-get ${args.join(' ')} failed (exit ${status}); run as root: ${command}`);
  }
  const absent: DebianPackage[] = [];
  for (const pkg of missing) {
    const installed = host.find(pkg);
    if (installed) {
      found.set(pkg.name, installed);
      host.say(`test-prerequisites: using ${installed}`);
    } else absent.push(pkg);
  }
  if (absent.length > 0) {
    throw new Error(`test-prerequisites: apt-get installed ${absent.map((p) => p.name).join(', ')} but found no ${absent.map((p) => p.executable).join(', ')} executable; run as root: ${installCommand(...absent)}`);
  }
  return found;
}

/** The package's executable, installing it first when it is missing and we may (ensurePackages for one). */
export function ensurePackage(pkg: DebianPackage, host: PrerequisiteHost = realHost): string {
  return ensurePackages([pkg], host).get(pkg.name)!;
}
