import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SHELL_STATE } from '../../../workers/runtime/shell-state.js';
import { tempDirs } from '../../helpers/temp.js';

// The bash prologue that carries an owner's cwd and exports from one command to the next.

const dirs = tempDirs();
after(() => dirs.removeAll());

/** Runs `script` after the prologue in a fresh bash, the state directory in __hermes_state. */
function run(state: string, script: string, env: NodeJS.ProcessEnv = {}): { stdout: string; status: number | null } {
  const r = spawnSync('bash', ['-c', `__hermes_state=${JSON.stringify(state)}\n${SHELL_STATE}\n${script}`], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env }, cwd: '/' });
  return { stdout: r.stdout, status: r.status };
}

test('on exit the cwd and the exports are saved; the next command starts from them', () => {
  const state = dirs.make('shell-state-');
  const work = realpathSync(dirs.make('shell-work-'));
  mkdirSync(join(work, 'sub'));
  assert.equal(run(state, `cd ${JSON.stringify(work)}/sub && export GREETING='hello world'; NOT_EXPORTED=1`).status, 0);
  assert.equal(readFileSync(join(state, 'cwd'), 'utf8'), `${work}/sub\n`);
  const env = readFileSync(join(state, 'env.sh'), 'utf8');
  assert.match(env, /GREETING="hello world"/);
  assert.doesNotMatch(env, /NOT_EXPORTED|__hermes/);
  // The cwd file is the caller's to apply; the exports come back by themselves.
  const next = run(state, 'echo "$GREETING|${NOT_EXPORTED:-unset}"');
  assert.equal(next.stdout, 'hello world|unset\n');
});

test('the state is saved even when the command fails, and its exit status is kept', () => {
  const state = dirs.make('shell-state-');
  const r = run(state, 'export CODE=7; exit 3');
  assert.equal(r.status, 3);
  assert.match(readFileSync(join(state, 'env.sh'), 'utf8'), /CODE="7"/);
});

test("the worker's own tag wins over an older one in the snapshot", () => {
  const state = dirs.make('shell-state-');
  writeFileSync(join(state, 'env.sh'), 'declare -x HERMES_MCP_WORKER_TAG="old-worker"\ndeclare -x KEPT="yes"\n');
  const r = run(state, 'echo "$HERMES_MCP_WORKER_TAG $KEPT"; bash -c \'echo "child:$HERMES_MCP_WORKER_TAG"\'', { HERMES_MCP_WORKER_TAG: 'new-worker' });
  assert.equal(r.stdout, 'new-worker yes\nchild:new-worker\n');
  assert.match(readFileSync(join(state, 'env.sh'), 'utf8'), /HERMES_MCP_WORKER_TAG="new-worker"/);
});

test('a broken snapshot is ignored silently; a missing one is not an error', () => {
  const state = dirs.make('shell-state-');
  assert.deepEqual(run(state, 'echo fresh'), { stdout: 'fresh\n', status: 0 });
  writeFileSync(join(state, 'env.sh'), 'export BEFORE=1\nthis is not ( valid bash\n');
  const r = run(state, 'echo "ok:${BEFORE:-}"');
  assert.equal(r.stdout, 'ok:1\n');
});

test('a state directory that is gone costs the command nothing: no save errors in its output, its status kept', () => {
  const gone = join(dirs.make('shell-state-'), 'removed');
  const r = spawnSync('bash', ['-c', `__hermes_state=${JSON.stringify(gone)}\n${SHELL_STATE}\necho out; echo err >&2; exit 4`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
    cwd: '/',
    // stdin from /dev/null: on a socket (Node's default pipe) Debian's bash takes itself for an
    // rsh/ssh session and reads ~/.bashrc, whose own errors are not the prologue's.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  assert.deepEqual({ stdout: r.stdout, stderr: r.stderr, status: r.status }, { stdout: 'out\n', stderr: 'err\n', status: 4 });
});
