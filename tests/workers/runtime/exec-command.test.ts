import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { processStartTime, WORKER_TAG_VAR } from '../../../shared/proc.js';
import type { ExecRequest } from '../../../shared/worker-protocol/exec.js';
import { runCommand, spawnedChildren } from '../../../workers/runtime/exec-command.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// One command in a fresh bash, Hermes' wrapper layout, called in this process. The worker tag is
// this file's own, so nothing here can be mistaken for another process's work.

process.env[WORKER_TAG_VAR] = `exec-command-test-${randomBytes(6).toString('hex')}`;
const temp = tempDirs();
after(() => temp.removeAll());

const req = (command: string, stateDir: string, extra: Partial<ExecRequest> = {}): ExecRequest => ({ command, cwd: '/', timeoutMs: 10_000, stateDir, maxOutputBytes: 64 * 1024, ...extra });

test('output, exit status and the cwd the command ended in; spawned children are forgotten after', async () => {
  const state = temp.make('hmcp-exec-state-');
  const result = await runCommand(req('echo hi; echo err >&2; cd /tmp; exit 3', state));
  assert.deepEqual(result, { exitCode: 3, timedOut: false, output: 'hi\nerr\n', outputBytes: 7, cwd: '/tmp' });
  assert.equal(readFileSync(`${state}/cwd`, 'utf8'), '/tmp\n');
  assert.equal(spawnedChildren.size, 0);
});

test('exports persist through the state directory; the request\'s own variables never do', async () => {
  const state = temp.make('hmcp-exec-state-');
  await runCommand(req('export GREETING=hello; cd /usr', state));
  const next = await runCommand(req('echo "$GREETING $(pwd) ${HERMES_MCP_COMMAND-unset} ${HERMES_MCP_STATE_DIR-unset} ${HERMES_MCP_SETUP-unset}"', state, { cwd: '/' }));
  assert.equal(next.output, 'hello / unset unset unset\n', 'the cwd is the request\'s, the exports the saved ones');
  assert.equal(next.cwd, '/');
  const saved = readFileSync(`${state}/env.sh`, 'utf8');
  assert.match(saved, /GREETING="hello"/);
  assert.doesNotMatch(saved, /HERMES_MCP_(COMMAND|STATE_DIR|CWD|SETUP)/);
});

test('bash\'s diagnostics carry Hermes\' line numbers: the command is line 3, or 5 with the agent environment', async () => {
  const state = temp.make('hmcp-exec-state-');
  const plain = await runCommand(req('no_such_command_hmcp', state));
  assert.equal(plain.exitCode, 127);
  assert.match(plain.output, /^\/\S*bash: line 3: no_such_command_hmcp: command not found\n$/);
  const agent = await runCommand(req('echo "$AI_AGENT $HERMES_AGENT $GIT_PAGER $PAGER"; no_such_command_hmcp', state, { agentEnvironment: true }));
  assert.match(agent.output, /^hermes-agent true cat cat\n\/\S*bash: line 5: no_such_command_hmcp: command not found\n$/);
  const preset = await runCommand(req('echo "$PAGER"', state, { agentEnvironment: true }));
  assert.equal(preset.output, 'cat\n');
});

test('a working directory that cannot be entered fails as Hermes\' wrapper does: cd\'s message, exit 126', async () => {
  const state = temp.make('hmcp-exec-state-');
  const result = await runCommand(req('echo never', state, { cwd: '/nonexistent-hmcp' }));
  assert.equal(result.exitCode, 126);
  assert.match(result.output, /^\/\S*bash: line 2: cd: \/nonexistent-hmcp: No such file or directory\n$/);
});

test('a deadline kills the whole process group: exit 124, timed out, with what was printed before', async () => {
  const state = temp.make('hmcp-exec-state-');
  const started = performance.now();
  const result = await runCommand(req('echo before; sleep 30 & echo $! > bg.pid; sleep 30', state, { cwd: state, timeoutMs: 300 }));
  assert.equal(result.exitCode, 124);
  assert.equal(result.timedOut, true);
  assert.equal(result.output, 'before\n');
  assert.ok(performance.now() - started < 5000);
  const bg = Number(readFileSync(`${state}/bg.pid`, 'utf8'));
  await waitFor(() => processStartTime(bg) === undefined, 5000, 'the background sleep to die with its group');
});

test('a command killed by a signal reports 128 + its number', async () => {
  const state = temp.make('hmcp-exec-state-');
  assert.equal((await runCommand(req('kill -9 $$', state))).exitCode, 137);
  assert.equal((await runCommand(req('kill -TERM $$', state))).exitCode, 143);
});

test('output beyond the transport bound is cut to head and tail; the byte count is the whole', async () => {
  const state = temp.make('hmcp-exec-state-');
  const result = await runCommand(req("head -c 100000 /dev/zero | tr '\\0' a; echo; echo END", state, { maxOutputBytes: 1000 }));
  assert.equal(result.outputBytes, 100005);
  assert.ok(result.output.length <= 1200, `${result.output.length} chars kept`);
  assert.ok(result.output.startsWith('aaaa') && result.output.endsWith('END\n'), result.output.slice(-20));
});

test('no state directory to save into: the command still runs, and the result has no cwd', async () => {
  const result = await runCommand(req('echo ok', '/nonexistent-hmcp-state'));
  assert.equal(result.exitCode, 0);
  assert.equal(result.timedOut, false);
  assert.equal('cwd' in result, false);
  // The EXIT trap's own redirect failures are part of the output (bash reports them before its 2>/dev/null applies).
  assert.equal(result.output.split('\n')[0], 'ok');
});
