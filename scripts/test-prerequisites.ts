import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// The Debian packages the tests run for real, and the one way the test command makes sure of them:
// present, it only looks; missing, as root on Debian it installs the package from the machine's own
// apt sources (saying so); anywhere else it fails with the exact install command — never a skip,
// and nothing is ever fetched from anywhere else (playwright-core downloads no browser).
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

export function installCommand(pkg: DebianPackage): string {
  return `apt-get update && apt-get install -y --no-install-recommends ${pkg.name}`;
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

/** The package's executable, installing it first when it is missing and we may. Throws with the exact instruction otherwise. */
export function ensurePackage(pkg: DebianPackage, host: PrerequisiteHost = realHost): string {
  const found = host.find(pkg);
  if (found) return found;
  const command = installCommand(pkg);
  if (!host.canApt()) throw new Error(`${pkg.neededBy} need Debian's ${pkg.name} package, and it is not installed. As root, run: ${command}`);
  host.say(`test-prerequisites: ${pkg.name} is missing; installing Debian's package: ${command}`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', pkg.name]]) {
    const status = host.run('apt-get', args);
    if (status !== 0) throw new Error(`test-prerequisites: apt-get ${args.join(' ')} failed (exit ${status}); run as root: ${command}`);
  }
  const installed = host.find(pkg);
  if (!installed) throw new Error(`test-prerequisites: apt-get installed ${pkg.name} but no ${pkg.executable} executable was found; run as root: ${command}`);
  host.say(`test-prerequisites: using ${installed}`);
  return installed;
}
