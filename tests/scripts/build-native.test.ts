import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { tempDirs } from '../helpers/temp.js';

// The package's own install script (scripts/build-native.sh, package.json `install`): npm runs it in
// the foreground on every npm install and npm ci, so node-gyp's output is kept aside and shown only
// when the build fails, with what the build needs, and the exit status is node-gyp's. Here a
// node-gyp on PATH stands in for npm's, talking as node-gyp does and exiting as told.

const temp = tempDirs();
after(() => temp.removeAll());
const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { scripts: Record<string, string>; gypfile?: boolean };
const CHATTER = 'gyp info it worked if it ends with ok\ngyp info spawn make\nmake: Entering directory';

function run(exitCode: number, env: Record<string, string> = {}) {
  const bin = temp.make('build-native-bin-');
  const tmp = temp.make('build-native-tmp-');
  writeFileSync(join(bin, 'node-gyp'), `#!/bin/sh\n[ "$*" = rebuild ] || { echo "unexpected arguments: $*" >&2; exit 99; }\nprintf '%s\\n' '${CHATTER.replaceAll('\n', "' '")}'\necho 'gyp ERR! stderr line' >&2\nexit ${exitCode}\n`);
  chmodSync(join(bin, 'node-gyp'), 0o755);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_config_'))) as Record<string, string>;
  // The command npm runs, as package.json gives it, from the package root.
  const r = spawnSync('sh', ['-c', pkg.scripts.install!], { cwd: packageRoot(), env: { ...clean, PATH: `${bin}:${process.env.PATH ?? ''}`, TMPDIR: tmp, ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, leftInTmp: readdirSync(tmp) };
}

test('package.json runs the script as its install step (no implicit node-gyp rebuild beside it)', () => {
  assert.equal(pkg.scripts.install, 'sh scripts/build-native.sh');
  assert.equal(pkg.gypfile, undefined);
});

test('a build that succeeds prints nothing and leaves no log behind', () => {
  const r = run(0);
  assert.deepEqual([r.status, r.stdout, r.stderr, r.leftInTmp], [0, '', '', []]);
});

test("a build that fails shows node-gyp's whole output, what the build needs, and exits with node-gyp's status", () => {
  const r = run(7);
  assert.equal(r.status, 7);
  assert.equal(r.stdout, '');
  for (const line of [...CHATTER.split('\n'), 'gyp ERR! stderr line']) assert.ok(r.stderr.includes(`${line}\n`), `${line} in ${r.stderr}`);
  assert.match(r.stderr, /build-native: node-gyp rebuild failed \(exit 7\), its output is above\. .*C\/C\+\+ toolchain, make and python3 \(Debian\/Ubuntu: apt-get install build-essential python3\)/);
  assert.deepEqual(r.leftInTmp, []);
});

test('--foreground-scripts or a verbose loglevel shows node-gyp as it runs', () => {
  const shown: Array<Record<string, string>> = [{ npm_config_foreground_scripts: 'true' }, { npm_config_loglevel: 'verbose' }, { npm_config_loglevel: 'silly' }];
  for (const env of shown) {
    const r = run(0, env);
    assert.equal(r.status, 0);
    assert.ok(r.stdout.includes(CHATTER), JSON.stringify(env));
  }
  assert.equal(run(0, { npm_config_loglevel: 'notice' }).stdout, '', 'the default loglevel stays quiet');
});
