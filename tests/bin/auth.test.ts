import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDirs } from '../helpers/temp.js';

// hermes-mcp-auth's argument handling and help, on the built bin as a child process, in a Hermes
// home of its own. The commands are supervisor/http/auth/operator-cli.ts'; here only what the bin
// decides: which help, which exit code, and the flags it passes on.

const BIN = fileURLToPath(new URL('../../bin/auth.js', import.meta.url));
const temp = tempDirs();
after(() => temp.removeAll());

function auth(args: string[], home = temp.make('auth-bin-')) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, HERMES_HOME: home }, input: '', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('no command prints the main help with exit 2; help and --help with exit 0', () => {
  const none = auth([]);
  assert.equal(none.status, 2);
  assert.match(none.stdout, /^Usage: hermes-mcp-auth <command> \[options\]\n\nCommands:\n/);
  assert.equal(auth(['help']).status, 0);
  const help = auth(['--help']);
  assert.equal(help.status, 0);
  assert.equal(help.stdout, none.stdout);
});

test('a command\'s --help prints its own help', () => {
  const r = auth(['token', '--help']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^Usage: hermes-mcp-auth token create NAME \[--scope read\|full\] \[--json\]\n/);
  assert.match(auth(['approve', '-h']).stdout, /^Usage: hermes-mcp-auth approve CODE \[--read-only\] \[--yes\] \[--json\]\n/);
});

test('an unknown command or option is a usage error (2), as JSON with --json', () => {
  const r = auth(['frobnicate']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^hermes-mcp-auth: unknown command frobnicate\n\nUsage: hermes-mcp-auth <command>/);
  const json = auth(['frobnicate', '--json']);
  assert.equal(json.status, 2);
  const answer = JSON.parse(json.stdout) as { ok: boolean; error: string; message: string };
  assert.deepEqual([answer.ok, answer.error], [false, 'usage']);
  assert.match(answer.message, /^unknown command frobnicate\n/);
  const option = auth(['clients', '--frob']);
  assert.equal(option.status, 2);
  assert.match(option.stderr, /^hermes-mcp-auth: Unknown option '--frob'/);
  assert.equal(auth(['token', 'list', '--scope']).status, 2, '--scope needs a value');
});

test('token create passes the name and --scope on; list shows them, never the secret', () => {
  const home = temp.make('auth-token-');
  const created = auth(['token', 'create', 'ci-runner', '--scope', 'read', '--json'], home);
  assert.equal(created.status, 0, created.stderr);
  const { token } = JSON.parse(created.stdout) as { token: string };
  assert.equal(typeof token, 'string');
  const listed = auth(['token', 'list', '--json'], home);
  assert.equal(listed.status, 0, listed.stderr);
  assert.ok(!listed.stdout.includes(token));
  const { tokens } = JSON.parse(listed.stdout) as { tokens: Array<{ name: string; scope: string }> };
  assert.deepEqual(tokens.map((t) => [t.name, t.scope]), [['ci-runner', 'hermes:read']]);
  assert.equal(auth(['token', 'create', 'ci-runner', '--json'], home).status, 4, 'a taken name is refused');
});
