import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { HermesCaller } from '../../../supervisor/platform/hermes/call.js';
import { locateHermes } from '../../../supervisor/platform/hermes/locate.js';
import { createWorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { hermes } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// write_file's and patch's syntax checks of Python and TOML through the real pinned Hermes' own
// in-process linters (LINTERS_INPROC) in a Hermes call worker, and through the system python3
// where no Hermes Agent is found; the size limit leaves a text unchecked and never refused.
// (tests/fidelity compares the same answers with Hermes' write_file/patch case by case.)

const cases = new Cases();
const temp = tempDirs();
after(() => {
  cases.cleanup();
  temp.removeAll();
});

/** A caller of the pinned Hermes, or (`withoutHermes`) of a composition where no Hermes Agent is found. */
async function caller(withoutHermes = false): Promise<HermesCaller> {
  const home = temp.make('hmcp-write-lint-');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  const python = withoutHermes ? join(home, 'no-such-venv', 'bin', 'python') : hermes().python;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_AGENT_PYTHON: python };
  const config = loadConfig(env, { inheritedEnvironment: { PATH: env.PATH } });
  const install = await locateHermes(config);
  assert.equal(install.state === 'not_installed', withoutHermes, `Hermes ${withoutHermes ? 'must not' : 'must'} be found`);
  return new HermesCaller(createWorkerRuntime(config, env), install);
}

for (const [label, withoutHermes] of [["Hermes' own linters", false], ['the system python3 (no Hermes Agent found)', true]] as const) {
  describe(`write_file/patch syntax checks through ${label}`, () => {
    test('Python: a syntax error is reported after the write, as Hermes words it; valid code is ok', async () => {
      const c = cases.make({ hermesCaller: await caller(withoutHermes) });
      const bad = await call(c.write, { path: 'm.py', content: 'def f(:\n    return 1\n' });
      assert.deepEqual(bad.lint, { status: 'error', output: "SyntaxError: invalid syntax (line 1, column 7)" });
      assert.equal(c.text('m.py'), 'def f(:\n    return 1\n', 'Python is reported, never refused');
      assert.deepEqual((await call(c.write, { path: 'ok.py', content: 'def f():\n    return 1\n' })).lint, { status: 'ok', output: '' });
      const indented = await call(c.write, { path: 'i.py', content: 'def f():\nreturn 1\n' });
      assert.deepEqual(indented.lint, { status: 'error', output: "IndentationError: expected an indented block after function definition on line 1 (line 2, column 1)" });
    });

    test('a patch that breaks Python reports only what it introduced; a file broken before says so', async () => {
      const c = cases.make({ hermesCaller: await caller(withoutHermes) });
      c.file('m.py', 'def f():\n    return 1\n');
      const broke = await call(c.patch, { path: 'm.py', old_string: 'return 1', new_string: 'return (1' });
      assert.deepEqual(broke.lint, { status: 'error', output: "SyntaxError: '(' was never closed (line 2, column 12)" });
      c.file('old.py', 'def f(:\n    return 1\n');
      const still = await call(c.patch, { path: 'old.py', old_string: 'return 1', new_string: 'return 2' });
      assert.deepEqual(still.lint, { status: 'error', output: "SyntaxError: invalid syntax (line 1, column 7)", message: "Pre-existing lint errors — this edit didn't introduce new ones but the file is still broken." });
    });

    test('a JSON, YAML or TOML write is checked once: the gate\'s verdict on the text is its lint too (one worker per write)', async () => {
      const hermesCaller = await caller(withoutHermes);
      const calls: string[] = [];
      const real = hermesCaller.call.bind(hermesCaller);
      hermesCaller.call = (module, op, payload, options) => {
        calls.push(`${module}.${op}`);
        return real(module, op, payload, options);
      };
      const c = cases.make({ hermesCaller });
      for (const [path, content] of [['p.toml', 'a = 1\n'], ['d.json', '{"a": 1}\n'], ['y.yaml', 'a: 1\n']] as const) {
        calls.length = 0;
        const r = await call(c.write, { path, content });
        assert.deepEqual(r.lint, { status: 'ok', output: '' }, path);
        // JSON and YAML are parsed by the gateway itself where no Hermes is found.
        const expected = withoutHermes && !path.endsWith('.toml') ? [] : ['lint.check'];
        assert.deepEqual(calls, expected, `${path}: ${JSON.stringify(calls)}`);
      }
    });

    test('TOML that does not parse is refused before anything is written, by write_file and by patch', async () => {
      const c = cases.make({ hermesCaller: await caller(withoutHermes) });
      const e = await expectCode(c.write.handler({ path: 'new/c.toml', content: '[s\nk = v\n' }, ctx), ErrorCode.INVALID_ARGUMENTS);
      assert.match(e.message, /^Refusing to write '.*c\.toml': candidate content fails \.toml syntax validation \(TOMLDecodeError: .+\)\. The file was NOT created or modified\. Fix the content and retry\.$/);
      assert.equal(existsSync(c.p('new')), false, 'no directory is created for a refused write');
      c.file('c.toml', '[s]\nk = "v"\n');
      const p = await expectCode(c.patch.handler({ path: 'c.toml', old_string: 'k = "v"', new_string: 'k = v' }, ctx), ErrorCode.INVALID_ARGUMENTS);
      assert.match(p.message, /^Failed to write changes: Refusing to write .*TOMLDecodeError: Invalid value/);
      assert.equal(c.text('c.toml'), '[s]\nk = "v"\n');
      assert.deepEqual((await call(c.write, { path: 'p.toml', content: '[project]\nname = "x"\n' })).lint, { status: 'ok', output: '' });
    });
  });
}

test("JSON and YAML: Hermes' own parsers' words where a Hermes is found, the gateway's parsers where none is", async () => {
  const withHermes = cases.make({ hermesCaller: await caller() });
  const e = await expectCode(withHermes.write.handler({ path: 'c.json', content: '{"a": 1,}\n' }, ctx), ErrorCode.INVALID_ARGUMENTS);
  assert.match(e.message, /\(JSONDecodeError: Expecting property name enclosed in double quotes \(line 1, column 9\)\)/);
  const y = await expectCode(withHermes.write.handler({ path: 'c.yml', content: 'a: [1, 2\n' }, ctx), ErrorCode.INVALID_ARGUMENTS);
  assert.match(y.message, /candidate content fails \.yml syntax validation \(YAMLError: /);
  assert.deepEqual((await call(withHermes.write, { path: 'k.yaml', content: 'kind: A\n---\nref: !Ref B\n' })).lint, { status: 'ok', output: '' });
  const without = cases.make({ hermesCaller: await caller(true) });
  const g = await expectCode(without.write.handler({ path: 'c.json', content: '{"a": 1,}\n' }, ctx), ErrorCode.INVALID_ARGUMENTS);
  assert.match(g.message, /candidate content fails \.json syntax validation \(JSONDecodeError: /);
  assert.doesNotMatch(g.message, /Expecting property name/, "no Hermes: the gateway's own JSON parser answers");
});

test('a text over writeLintMaxBytes is not checked: lint says why, and TOML is written unrefused', async () => {
  const c = cases.make({ hermesCaller: await caller(), writeLintMaxBytes: 16 });
  const r = await call(c.write, { path: 'c.toml', content: '[s\nk = v\n# a long enough comment\n' });
  assert.deepEqual(r.lint, { status: 'skipped', message: "Syntax check of .toml skipped: the file is over the gateway's 16-byte limit for syntax checks (writeLintMaxBytes)" });
  assert.equal(c.text('c.toml'), '[s\nk = v\n# a long enough comment\n');
});
