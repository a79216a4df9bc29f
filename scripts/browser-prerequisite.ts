import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// The browser tests drive a real Chromium: Debian's `chromium` package, launched by playwright-core
// (which downloads no browser). The test command calls ensureChromium() first, so a fresh Debian
// machine gets the package from its own apt sources, and nothing else ever fetches a browser build.

export const CHROMIUM_INSTALL = 'apt-get update && apt-get install -y --no-install-recommends chromium';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` found on `PATH` as an executable file, or undefined. */
function onPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  return path
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find(isExecutable);
}

/** Debian's Chromium: /usr/bin/chromium, else `chromium` on PATH, else undefined. */
export function chromiumPath(): string | undefined {
  return isExecutable('/usr/bin/chromium') ? '/usr/bin/chromium' : onPath('chromium');
}

export interface PrerequisiteHost {
  chromium(): string | undefined;
  /** Root on Debian with apt-get: allowed to install the package itself. */
  canApt(): boolean;
  /** Runs one command (stdio shown to the user); its exit status. */
  run(command: string, args: string[]): number;
  say(line: string): void;
}

const realHost: PrerequisiteHost = {
  chromium: chromiumPath,
  canApt: () => process.getuid?.() === 0 && existsSync('/etc/debian_version') && onPath('apt-get') !== undefined,
  run: (command, args) => spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] }).status ?? 1,
  say: (line) => process.stderr.write(`${line}\n`),
};

/**
 * Chromium's path, installing Debian's package first when it is missing and we may (root, Debian,
 * apt-get). Throws with the exact instruction otherwise. When Chromium is present it only looks.
 */
export function ensureChromium(host: PrerequisiteHost = realHost): string {
  const found = host.chromium();
  if (found) return found;
  if (!host.canApt()) {
    throw new Error(`The browser tests need Debian's chromium package, and it is not installed. As root, run: ${CHROMIUM_INSTALL}`);
  }
  host.say(`browser-prerequisite: chromium is missing; installing Debian's package: ${CHROMIUM_INSTALL}`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    const status = host.run('apt-get', args);
    if (status !== 0) throw new Error(`browser-prerequisite: apt-get ${args.join(' ')} failed (exit ${status}); run as root: ${CHROMIUM_INSTALL}`);
  }
  const installed = host.chromium();
  if (!installed) throw new Error(`browser-prerequisite: apt-get installed chromium but no chromium executable was found; run as root: ${CHROMIUM_INSTALL}`);
  host.say(`browser-prerequisite: using ${installed}`);
  return installed;
}
