import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { processStartTime, WORKER_TAG_VAR } from '../../../shared/proc.js';
import type { ExecRequest } from '../../../shared/worker-protocol/exec.js';
import { PersistentShell } from '../../../workers/runtime/persistent-shell.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// One long-lived bash, called in this process. The after-command sweep kills what this process
// started (its descendants and this file's own worker tag) except the shells.

process.env[WORKER_TAG_VAR] = `persistent-shell-test-${randomBytes(6).toString('hex')}`;
const temp = tempDirs();
const shells: PersistentShell[] = [];
after(() => {
  shells.forEach((s) => s.kill());
  temp.removeAll();
});

function shell(): PersistentShell {
  const s = new PersistentShell();
  shells.push(s);
  return s;
}
const req = (command: string, stateDir: string, extra: Partial<ExecRequest> = {}): ExecRequest => ({ command, cwd: '/', timeoutMs: 10_000, stateDir, maxOutputBytes: 64 * 1024, ...extra });

test('commands share one live shell: same $$, exports and shell variables persist, the cwd is each request\'s', async () => {
  const s = shell();
  const state = temp.make('hmcp-pshell-');
  const first = await s.run(req('echo $$; export X=1; LOCAL=2; cd /tmp', state));
  assert.equal(first.exitCode, 0);
  assert.equal(first.cwd, '/tmp');
  const second = await s.run(req('echo $$; echo "$X $LOCAL $(pwd)"', state, { cwd: '/usr' }));
  assert.equal(second.output, `${first.output.split('\n')[0]}\n1 2 /usr\n`);
  assert.deepEqual({ ...second, output: '' }, { exitCode: 0, timedOut: false, output: '', outputBytes: second.output.length + 1, cwd: '/usr' });
});

test('exit status of the command; stdin is /dev/null, not the shell\'s protocol', async () => {
  const s = shell();
  const state = temp.make('hmcp-pshell-');
  assert.equal((await s.run(req('false', state))).exitCode, 1);
  assert.equal((await s.run(req('(exit 42)', state))).exitCode, 42);
  assert.deepEqual(await s.run(req('cat; echo done', state)), { exitCode: 0, timedOut: false, output: 'done\n', outputBytes: 6, cwd: '/' });
});

test('a command that ends the shell gives its status, and the next starts a new shell from the saved state', async () => {
  const s = shell();
  const state = temp.make('hmcp-pshell-');
  const pid = (await s.run(req('export KEPT=yes; echo $$', state))).output.trim();
  const ended = await s.run(req('echo bye; exit 5', state));
  assert.equal(ended.exitCode, 5);
  assert.equal(ended.output, 'bye\n');
  const next = await s.run(req('echo $$ $KEPT', state));
  const [newPid, kept] = next.output.trim().split(' ');
  assert.notEqual(newPid, pid);
  assert.equal(kept, 'yes');
});

test('a working directory that cannot be entered is said, with exit 1, and the command does not run', async () => {
  const s = shell();
  const state = temp.make('hmcp-pshell-');
  const result = await s.run(req('touch ran', state, { cwd: '/nonexistent-hmcp' }));
  assert.equal(result.exitCode, 1);
  assert.equal(result.output, 'cannot enter working directory: /nonexistent-hmcp\n');
  assert.throws(() => readFileSync(`${state}/ran`));
});

test('a deadline kills the shell: 124, timed out, what was printed before; the next command gets a fresh shell', async () => {
  const s = shell();
  const state = temp.make('hmcp-pshell-');
  const before = (await s.run(req('echo $$', state))).output.trim();
  const result = await s.run(req('echo before; sleep 30', state, { timeoutMs: 300 }));
  assert.equal(result.exitCode, 124);
  assert.equal(result.timedOut, true);
  assert.equal(result.output, 'before\n');
  await waitFor(() => processStartTime(Number(before)) === undefined, 5000, 'the old shell to be gone');
  const after = (await s.run(req('echo $$', state))).output.trim();
  assert.notEqual(after, before);
});

test('what a command leaves running in the background is killed after it; the shell is spared', async () => {
  const s = shell();
  const state = temp.make('hmcp-pshell-');
  const out = await s.run(req('sleep 30 >/dev/null 2>&1 & echo $! $$', state));
  const [bg, sh] = out.output.trim().split(' ').map(Number);
  await waitFor(() => processStartTime(bg!) === undefined, 5000, 'the background sleep to die');
  assert.notEqual(processStartTime(sh!), undefined, 'the shell is alive');
  // (bash may first report its job's death: only the last line is the command's.)
  assert.equal((await s.run(req('echo $$', state))).output.trim().split('\n').at(-1), String(sh));
});

test('another state directory means another shell (the owner changed); kill() ends it', async () => {
  const s = shell();
  const a = temp.make('hmcp-pshell-');
  const b = temp.make('hmcp-pshell-');
  const inA = (await s.run(req('export IN_A=1; echo $$', a))).output.trim();
  const inB = await s.run(req('echo "$$ ${IN_A-unset}"', b));
  const [pidB, seen] = inB.output.trim().split(' ');
  assert.notEqual(pidB, inA);
  assert.equal(seen, 'unset');
  s.kill();
  await waitFor(() => processStartTime(Number(pidB)) === undefined, 5000, 'the killed shell to be gone');
  assert.notEqual((await s.run(req('echo $$', b))).output.trim(), pidB);
});

test('the agent environment is exported before the command when asked', async () => {
  const s = shell();
  const state = temp.make('hmcp-pshell-');
  assert.equal((await s.run(req('echo "$AI_AGENT $HERMES_AGENT $GIT_PAGER $PAGER"', state, { agentEnvironment: true }))).output, 'hermes-agent true cat cat\n');
});
