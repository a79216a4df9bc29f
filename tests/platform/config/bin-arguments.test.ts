import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../shared/package-root.js';
import { tempDirs } from '../../helpers/temp.js';
import { within } from '../../helpers/wait.js';

// The gateway bin takes its settings from the environment; its only arguments are --help and
// --version. Neither, nor a stray argument, may start a server (a user typing --help must not end
// up with a gateway listening on 3060).

const BIN = join(packageRoot(), 'dist', 'bin', 'gateway.js');
const temp = tempDirs();
after(() => temp.removeAll());

async function runBin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = temp.make('hmcp-bin-');
  // Port 0 and a throwaway home: should a regression start the server anyway, it listens nowhere
  // that matters, and the bounded wait below turns it into a failure.
  const child = spawn(BIN, args, { env: { ...process.env, HERMES_HOME: home, HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_JOBS_DATABASE: join(home, 'jobs.sqlite3') }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    const code = await within(new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c))), 10_000, `hermes-mcp-gateway ${args.join(' ')} to exit`);
    return { code, stdout, stderr };
  } finally {
    if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
  }
}

test('--help prints usage on stdout and exits 0 without serving', async () => {
  for (const flag of ['--help', '-h']) {
    const r = await runBin([flag]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^usage: hermes-mcp-gateway/);
    assert.match(r.stdout, /HERMES_MCP_ROOTS/);
    assert.match(r.stdout, /hermes-mcp-admission --help/);
    assert.doesNotMatch(r.stderr, /listening/);
  }
});

test('--version prints the package version and exits 0', async () => {
  const { version } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  const r = await runBin(['--version']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `hermes-mcp-gateway ${version}\n`);
});

test('an unknown argument is a usage error (exit 2), not a server started anyway', async () => {
  for (const args of [['--port', '4000'], ['serve'], ['--help', '--bogus']]) {
    const r = await runBin(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /unexpected argument/);
    assert.match(r.stderr, /usage: hermes-mcp-gateway/);
    assert.doesNotMatch(r.stderr, /listening/);
  }
});
