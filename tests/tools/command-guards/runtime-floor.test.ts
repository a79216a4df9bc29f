import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { checkCommand } from '../../../supervisor/tools/command-guards/index.js';
import { commandDeletesRuntime, protectedRuntimeOf } from '../../../supervisor/tools/command-guards/runtime-floor.js';
import { tempDirs } from '../../helpers/temp.js';

// The runtime self-delete floor (later Hermes' agent/runtime_self_protection.py, applied right after
// the hardline patterns): a command that deletes the interpreter Hermes runs on, its venv, the base
// interpreter that venv depends on or a uv-managed install holding it is always refused. Built here
// on a venv laid out as `python -m venv` and uv lay them out (nothing is ever deleted: commands
// are only judged). Compared with Hermes' own floor by the fidelity suite (group runtime-floor).

const temp = tempDirs();
after(() => temp.removeAll());

/** A uv-managed base interpreter and a venv on it, as a Hermes install has them. */
function install() {
  const root = realpathSync(temp.make('hmcp-floor-'));
  const base = join(root, 'uv', 'python', 'cpython-3.11.9-linux-x86_64-gnu');
  mkdirSync(join(base, 'bin'), { recursive: true });
  writeFileSync(join(base, 'bin', 'python3.11'), '');
  const home = join(root, 'home');
  const venv = join(home, '.hermes', 'hermes-agent', 'venv');
  mkdirSync(join(venv, 'bin'), { recursive: true });
  symlinkSync(join(base, 'bin', 'python3.11'), join(venv, 'bin', 'python'));
  writeFileSync(join(venv, 'pyvenv.cfg'), `home = ${join(base, 'bin')}\ninclude-system-site-packages = false\n`);
  return { root, base, home, venv, python: join(venv, 'bin', 'python') };
}

describe('the runtime self-delete floor', () => {
  test("the paths Hermes protects: its interpreter, its venv, the venv's base, the uv install holding it", () => {
    const { base, venv, python } = install();
    assert.deepEqual(protectedRuntimeOf(python), [
      { path: join(base, 'bin', 'python3.11'), description: 'the Python interpreter this Hermes runtime is running from' },
      { path: venv, description: "this Hermes runtime's own virtualenv" },
      { path: join(base, 'bin'), description: 'the base interpreter this Hermes venv depends on' },
      { path: base, description: 'the uv-managed Python install this Hermes venv depends on (3.11.9)' },
    ]);
  });

  test('a delete of any of them, or of a directory holding one, is found however the path is spelt', () => {
    const { root, base, home, venv, python } = install();
    const paths = protectedRuntimeOf(python);
    const ctx = { userHome: home, env: { HERMES_VENV: venv } };
    const venvHit = "this Hermes runtime's own virtualenv";
    assert.equal(commandDeletesRuntime(`rm -rf ${venv}`, paths, ctx), venvHit);
    assert.equal(commandDeletesRuntime(`sudo rm -rf ${venv}/lib`, paths, ctx), venvHit);
    assert.equal(commandDeletesRuntime('rm -rf ~/.hermes', paths, ctx), venvHit, 'an ancestor of the venv');
    assert.equal(commandDeletesRuntime('rm -r "$HOME/.hermes/hermes-agent"', paths, ctx), venvHit);
    assert.equal(commandDeletesRuntime('rm -rf $HERMES_VENV', paths, ctx), venvHit);
    assert.equal(commandDeletesRuntime(`cd /tmp && find ${venv} -name x -delete`, paths, ctx), venvHit);
    assert.equal(commandDeletesRuntime(`rm ${join(base, 'bin', 'python3.11')}`, paths, ctx), 'the Python interpreter this Hermes runtime is running from');
    assert.equal(commandDeletesRuntime('uv python uninstall 3.11', paths, ctx), 'the uv-managed Python install this Hermes venv depends on (3.11.9)');
    assert.equal(commandDeletesRuntime('rm -rf hermes-agent', paths, { ...ctx, cwd: join(home, '.hermes') }), venvHit, 'relative to the working directory');
    // Not a delete of the runtime: another directory, a read, a relative path without a working directory, another uv version.
    for (const command of [`rm -rf ${join(root, 'other')}`, `ls ${venv}`, 'rm -rf hermes-agent', 'uv python uninstall 3.12', `cp -r ${venv} /tmp/copy`, 'echo rm -rf ~/.hermes']) {
      assert.equal(commandDeletesRuntime(command, paths, ctx), undefined, command);
    }
  });

  test('the guard refuses it as hardline, after the hardline patterns, keyed as Hermes keys it', () => {
    const { home, venv, python } = install();
    const ctx = { hermesHome: join(home, '.hermes'), userHome: home, runtime: protectedRuntimeOf(python), env: {} };
    assert.deepEqual(checkCommand(`rm -rf ${venv}`, ctx), { verdict: 'hardline', key: "recursive/any delete of this Hermes runtime's own virtualenv" });
    assert.deepEqual(checkCommand('rm -rf ~/.hermes/hermes-agent/venv/lib', ctx), { verdict: 'hardline', key: "recursive/any delete of this Hermes runtime's own virtualenv" });
    assert.deepEqual(checkCommand('rm -rf ~', ctx), { verdict: 'hardline', key: 'recursive delete of home directory' });
    assert.deepEqual(checkCommand('rm -rf ~/projects/old', ctx), { verdict: 'dangerous', key: 'recursive delete' });
  });
});
