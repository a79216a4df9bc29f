import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { HERMES_TOOLS_MODULE, interpreterCandidates, realpathOr, type InterpreterSettings } from '../../../supervisor/platform/hermes/interpreters.js';
import { tempDirs } from '../../helpers/temp.js';

// The interpreter candidates, from directories laid out here as Hermes' installers lay them out
// (whether each candidate has Hermes is asked by locate.ts, tested in locate.test.ts).

const dirs = tempDirs();
after(() => dirs.removeAll());

function settings(home: string, extra: Partial<InterpreterSettings> = {}): InterpreterSettings {
  return { hermesAgentPython: undefined, hermesToolsCommand: undefined, hermesAgentSource: join(home, 'hermes-agent'), hermesHome: home, userHome: join(home, 'user'), ...extra };
}

/** A package-manager record under `root` naming `environment` for the checkout `source`. */
function committed(root: string, source: string, environment: string): void {
  const key = createHash('sha256').update(realpathSync(source)).digest('hex').slice(0, 16);
  mkdirSync(join(root, 'installs', key), { recursive: true });
  writeFileSync(join(root, 'installs', key, 'facts.json'), JSON.stringify({ packages: { venv: { environment } } }));
}

test('an explicit interpreter is the only candidate: HERMES_AGENT_PYTHON, else a tool-server command running the module', () => {
  const home = dirs.make('hmcp-interp-');
  assert.deepEqual(interpreterCandidates(settings(home, { hermesAgentPython: '/opt/py', hermesToolsCommand: ['/x', '-m', HERMES_TOOLS_MODULE] })), [{ python: '/opt/py', from: 'HERMES_AGENT_PYTHON' }]);
  assert.deepEqual(interpreterCandidates(settings(home, { hermesToolsCommand: ['/x/python', '-m', HERMES_TOOLS_MODULE, '--flag'] })), [{ python: '/x/python', from: 'HERMES_MCP_HERMES_TOOLS_COMMAND' }]);
  const other = interpreterCandidates(settings(home, { hermesToolsCommand: ['/x/python', '-m', 'other.module'] }));
  assert.equal(other[0]!.from, 'source tree venv', 'a command running another module names no interpreter');
});

test("the checkout's venv then .venv, the committed environments of each Hermes root, then the roots' venvs in name order", () => {
  const base = dirs.make('hmcp-interp-');
  const root = join(base, 'root');
  const home = join(root, 'profiles', 'p');
  const user = join(base, 'user');
  const source = join(root, 'hermes-agent');
  mkdirSync(home, { recursive: true });
  mkdirSync(source, { recursive: true });
  const env1 = join(base, 'env1');
  const env2 = join(base, 'env2');
  for (const e of [env1, env2]) {
    mkdirSync(e);
    writeFileSync(join(e, 'pyvenv.cfg'), 'home = /usr/bin\n');
  }
  committed(root, source, env1);
  committed(join(user, '.hermes'), source, env2);
  // A record naming a directory that is no venv counts for nothing.
  committed(home, source, join(base, 'not-a-venv'));
  mkdirSync(join(home, 'venvs', 'b'), { recursive: true });
  mkdirSync(join(home, 'venvs', 'a'), { recursive: true });
  const candidates = interpreterCandidates({ hermesAgentPython: undefined, hermesToolsCommand: undefined, hermesAgentSource: source, hermesHome: home, userHome: user });
  const tree = realpathSync(source);
  assert.deepEqual(candidates, [
    { python: join(source, 'venv', 'bin', 'python'), from: 'source tree venv' },
    { python: join(source, '.venv', 'bin', 'python'), from: 'source tree venv' },
    { python: join(env1, 'bin', 'python'), from: "Hermes' dependency environment" },
    { python: join(env2, 'bin', 'python'), from: "Hermes' dependency environment" },
    { python: join(home, 'venvs', 'a', 'bin', 'python'), from: '$HERMES_HOME/venvs', mustBeTree: tree },
    { python: join(home, 'venvs', 'b', 'bin', 'python'), from: '$HERMES_HOME/venvs', mustBeTree: tree },
  ]);
});

test('realpathOr: the real path, or the resolved path of one that does not exist', () => {
  const base = dirs.make('hmcp-interp-');
  mkdirSync(join(base, 'real'));
  symlinkSync(join(base, 'real'), join(base, 'link'));
  assert.equal(realpathOr(join(base, 'link')), realpathSync(join(base, 'real')));
  assert.equal(realpathOr('/nonexistent/a/../b'), '/nonexistent/b');
});
