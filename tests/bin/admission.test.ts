import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDirs } from '../helpers/temp.js';

// hermes-mcp-admission's argument handling, on the built bin as a child process: usage errors exit
// 2 with INVALID_ARGUMENTS before any database is opened; a database that cannot be opened exits 1
// with JOB_STORE_UNAVAILABLE. The commands themselves are tests/tools/jobs/admission-cli.test.ts'.

const BIN = fileURLToPath(new URL('../../bin/admission.js', import.meta.url));
const TOKEN = 'A'.repeat(40);
const temp = tempDirs();
after(() => temp.removeAll());

function admission(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const home = temp.make('admission-bin-');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, HERMES_HOME: home, ...extraEnv };
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, home };
}

/** The first line of stderr of a run that must exit 2. */
function usageError(args: string[]): string {
  const r = admission(args);
  assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
  assert.equal(r.stdout, '');
  return r.stderr.split('\n')[0]!;
}

test('--help prints every subcommand\'s usage and the notes, and exits 0', () => {
  const r = admission(['--help']);
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^usage:\n {2}hermes-mcp-admission status \[--database PATH\] \[--json\]\n/);
  for (const sub of ['status', 'drain', 'resume', 'snapshot', 'reconcile']) assert.match(r.stdout, new RegExp(`\\n {2}hermes-mcp-admission ${sub} `), sub);
  assert.match(r.stdout, /--database defaults to \$HERMES_MCP_JOBS_DATABASE/);
});

test('a subcommand\'s --help prints only its usage', () => {
  const r = admission(['snapshot', '-h']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^usage: hermes-mcp-admission snapshot \[--database PATH\] \[--json\] --output PATH\n/);
  assert.doesNotMatch(r.stdout, /hermes-mcp-admission drain/);
});

test('a missing or unknown subcommand is a usage error with the whole usage', () => {
  const none = admission([]);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^INVALID_ARGUMENTS: a subcommand is required\nusage:\n {2}hermes-mcp-admission status/);
  assert.equal(usageError(['toString']), 'INVALID_ARGUMENTS: unknown subcommand "toString"');
});

test('each subcommand takes only its own flags, in their own shapes', () => {
  assert.equal(usageError(['status', 'now']), 'INVALID_ARGUMENTS: unexpected argument "now"');
  assert.equal(usageError(['reconcile', '--apply=yes']), 'INVALID_ARGUMENTS: --apply takes no value');
  assert.equal(usageError(['drain', '--owner-token']), 'INVALID_ARGUMENTS: --owner-token needs a value');
  assert.equal(usageError(['snapshot']), 'INVALID_ARGUMENTS: --output is required');
  assert.equal(usageError(['status', '--database=']), 'INVALID_ARGUMENTS: --database is required');
  const r = admission(['status', '--apply']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^INVALID_ARGUMENTS: unknown option --apply\n/);
  assert.match(r.stderr, /\nusage: hermes-mcp-admission status \[--database PATH\] \[--json\]\n/, 'the subcommand\'s own usage follows');
});

test('drain checks its owner token, timeout and reason before the database', () => {
  assert.match(usageError(['drain']), /^INVALID_ARGUMENTS: an owner token is required: --owner-token-file FILE/);
  assert.equal(usageError(['drain', '--owner-token', TOKEN, '--timeout', '0']), 'INVALID_ARGUMENTS: --timeout must be a whole number of seconds, at least 1');
  assert.equal(usageError(['drain', '--owner-token', TOKEN, '--reason', 'two\nlines']), 'INVALID_ARGUMENTS: --reason must be one line of at most 200 characters');
});

test('a value beginning with "-" is taken as the option\'s value, so the run gets as far as the database', () => {
  const missing = join(temp.make('admission-db-'), 'no', 'such', 'jobs.sqlite3');
  const r = admission(['resume', '--owner-token', `-${TOKEN}`, '--database', missing]);
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stderr, `JOB_STORE_UNAVAILABLE: job database ${missing}: directory ${join(missing, '..')} is not accessible (ENOENT)\n`);
});

test('without --database the database is $HERMES_MCP_JOBS_DATABASE', () => {
  const missing = join(temp.make('admission-env-'), 'absent', 'jobs.sqlite3');
  const r = admission(['status', '--json'], { HERMES_MCP_JOBS_DATABASE: missing });
  assert.equal(r.status, 1);
  assert.equal(r.stderr, `JOB_STORE_UNAVAILABLE: job database ${missing}: directory ${join(missing, '..')} is not accessible (ENOENT)\n`);
});
