import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { nodeHeadersPrefix } from '../../scripts/node-binary.js';
import { packageRoot } from '../../shared/package-root.js';
import { tempDirs } from '../helpers/temp.js';

// scripts/install.sh, the README's install step, with an npm on PATH that only records what it was
// run with: npm install gets npm_config_nodedir = the running node's own prefix when that holds
// Node's headers (so node-gyp never downloads them), a nodedir the caller set is kept, and the
// arguments are passed on.

const temp = tempDirs();
after(() => temp.removeAll());
const SCRIPT = join(packageRoot(), 'scripts', 'install.sh');

function runWithFakeNpm(env: Record<string, string>, ...args: string[]) {
  const bin = temp.make('install-sh-');
  const record = join(bin, 'record.json');
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\nnode -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({ nodedir: process.env.npm_config_nodedir ?? null, args: process.argv.slice(2) }))' ${record} "$@"\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.toLowerCase() !== 'npm_config_nodedir')) as Record<string, string>;
  const r = spawnSync(SCRIPT, args, { cwd: packageRoot(), env: { ...clean, PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`, ...env }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(readFileSync(record, 'utf8')) as { nodedir: string | null; args: string[] };
}

test("npm install runs with node-gyp pointed at the running node's own headers (none: node-gyp's own way), arguments passed on", () => {
  const ran = runWithFakeNpm({}, '--omit=optional');
  assert.equal(ran.nodedir, nodeHeadersPrefix(process.execPath) ?? null);
  assert.deepEqual(ran.args, ['install', '--no-audit', '--no-fund', '--omit=optional']);
});

test('a nodedir already set by the caller is kept', () => {
  assert.equal(runWithFakeNpm({ npm_config_nodedir: '/opt/node-headers' }).nodedir, '/opt/node-headers');
});
