import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// The public-URL tests put a real reverse proxy in front of the gateway: Debian's `nginx` package,
// run as the test's own throw-away instance (its own prefix, config and ephemeral loopback port,
// never the system service or its default site). The test command calls ensureNginx() first, as it
// does ensureChromium(): a fresh Debian machine gets the package from its own apt sources; anywhere
// else the tests fail with the exact install command, never skip.

export const NGINX_INSTALL = 'apt-get update && apt-get install -y --no-install-recommends nginx';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Debian's nginx: /usr/sbin/nginx, else `nginx` on PATH, else undefined. */
export function nginxPath(path = process.env.PATH ?? ''): string | undefined {
  if (isExecutable('/usr/sbin/nginx')) return '/usr/sbin/nginx';
  return path.split(delimiter).filter(Boolean).map((dir) => join(dir, 'nginx')).find(isExecutable);
}

export interface NginxHost {
  nginx(): string | undefined;
  /** Root on Debian with apt-get: allowed to install the package itself. */
  canApt(): boolean;
  run(command: string, args: string[]): number;
  say(line: string): void;
}

const realHost: NginxHost = {
  nginx: () => nginxPath(),
  canApt: () => process.getuid?.() === 0 && existsSync('/etc/debian_version') && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0,
  // The package's postinst would start the system service; policy-rc.d-less containers have no init to start it with.
  run: (command, args) => spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status ?? 1,
  say: (line) => process.stderr.write(`${line}\n`),
};

/** nginx's path, installing Debian's package first when it is missing and we may. Throws with the exact instruction otherwise. */
export function ensureNginx(host: NginxHost = realHost): string {
  const found = host.nginx();
  if (found) return found;
  if (!host.canApt()) throw new Error(`The public-URL tests need Debian's nginx package, and it is not installed. As root, run: ${NGINX_INSTALL}`);
  host.say(`nginx-prerequisite: nginx is missing; installing Debian's package: ${NGINX_INSTALL}`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'nginx']]) {
    const status = host.run('apt-get', args);
    if (status !== 0) throw new Error(`nginx-prerequisite: apt-get ${args.join(' ')} failed (exit ${status}); run as root: ${NGINX_INSTALL}`);
  }
  const installed = host.nginx();
  if (!installed) throw new Error(`nginx-prerequisite: apt-get installed nginx but no nginx executable was found; run as root: ${NGINX_INSTALL}`);
  host.say(`nginx-prerequisite: using ${installed}`);
  return installed;
}
