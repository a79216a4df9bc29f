import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { nodeBinary } from './node-binary.js';

// Runs the whole test suite on other Node.js major versions (CI: the current LTS lines), each in a
// staged copy of this checkout so the native modules (better-sqlite3, the subreaper addon) can be
// built against that version's headers without touching this checkout's node_modules.
//
//   node dist/scripts/test-on-node.js 24 22
//   node dist/scripts/test-on-node.js 24 -- jobs/pty   only the test files run-tests.js selects so

const root = packageRoot();

function run(cmd: string, args: string[], options: SpawnSyncOptions): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

/** The files of this checkout as git sees them (tracked, plus untracked ones it does not ignore). */
function checkoutFiles(): string[] {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error('test-on-node needs a git checkout to stage');
  return r.stdout.split('\0').filter((f) => f !== '' && f !== 'node_modules');
}

function testOn(major: number, testPrefixes: readonly string[]): void {
  const binary = nodeBinary(major);
  const stage = join(root, '.cache', `node-${major}`, 'checkout');
  rmSync(stage, { recursive: true, force: true });
  for (const file of checkoutFiles()) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    cpSync(join(root, file), join(stage, file), { recursive: false, errorOnExist: false, force: true });
  }
  // node-gyp builds against this version's headers; npm's own scripts run on this node.
  const env = { ...process.env, PATH: `${binary.binDir}:${process.env.PATH ?? ''}`, npm_config_nodedir: binary.prefix };
  process.stdout.write(`\n== test suite on ${spawnSync(binary.node, ['--version'], { encoding: 'utf8' }).stdout.trim()} ==\n`);
  // `npm install`, as a fresh clone does (README, CI), not `npm ci`: the lock file cannot list the
  // other platforms' optional binaries of ttsc (@ttsc/darwin-arm64, ...) when the registry in use
  // does not carry them, and `npm ci` refuses such a lock while `npm install` skips them as optional.
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: stage, env });
  run(binary.node, [join(stage, 'dist', 'scripts', 'run-tests.js'), ...testPrefixes], { cwd: stage, env });
}

const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const majors = (dashes < 0 ? args : args.slice(0, dashes)).map(Number);
const testPrefixes = dashes < 0 ? [] : args.slice(dashes + 1);
if (majors.length === 0 || majors.some((m) => !Number.isInteger(m) || m < 20)) {
  process.stderr.write('usage: test-on-node.js MAJOR [MAJOR…] [-- TEST_PREFIX…]   e.g. 24 22, or 24 -- jobs\n');
  process.exit(2);
}
try {
  for (const major of majors) testOn(major, testPrefixes);
} catch (e) {
  process.stderr.write(`test-on-node: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
