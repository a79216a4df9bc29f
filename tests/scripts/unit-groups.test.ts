import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { mirroredTests } from '../../scripts/test-files.js';
import { GATEWAY_GROUP_MS, groupOf, OWN_PROCESS, runUnits, writeRunUnits } from '../../scripts/unit-groups.js';
import { tempDirs } from '../helpers/temp.js';

// A pass runs its test files a group to a process (scripts/unit-groups.ts): which files share one,
// and that sharing keeps each file's hooks and results its own.

const temp = tempDirs();
after(() => temp.removeAll());
const root = packageRoot();

test('a unit test goes to its family under tools/, or to its first folder; every other file, and one listed as changing its process, runs alone', () => {
  assert.equal(groupOf('tools/files/read/index.test.js'), 'tools/files');
  assert.equal(groupOf('tools/files.test.js'), 'tools');
  assert.equal(groupOf('platform/spawning/scope.test.js'), 'platform');
  assert.equal(groupOf('core/dispatch.test.js'), 'core');
  const unit = new Set(['core/b.test.js', 'core/a.test.js', 'tools/jobs/store/x.test.js', 'tools/jobs/y.test.js', 'shared/subreaper.test.js']);
  const files = ['tools/jobs/y.test.js', 'core/b.test.js', 'http/whole-gateway.test.js', 'core/a.test.js', 'shared/subreaper.test.js', 'tools/jobs/store/x.test.js'];
  assert.deepEqual(runUnits(files, unit), [
    { group: 'core', files: ['core/a.test.js', 'core/b.test.js'] },
    { group: 'tools/jobs', files: ['tools/jobs/store/x.test.js', 'tools/jobs/y.test.js'] },
    { files: ['http/whole-gateway.test.js'] },
    { files: ['shared/subreaper.test.js'] },
  ]);
});

test('the other files share a process per folder, in runs of at most GATEWAY_GROUP_MS measured; one unmeasured, or that long alone, runs alone', () => {
  const third = GATEWAY_GROUP_MS / 3;
  const unit = new Set(['tools/jobs/store/x.test.js']);
  const files = ['http/a.test.js', 'http/b.test.js', 'http/c.test.js', 'http/d.test.js', 'http/new.test.js', 'fidelity/long.test.js', 'tools/jobs/store/x.test.js', 'tools/jobs/run.test.js', 'platform/spawning/orphans-healthz.test.js'];
  const durations = { 'http/a.test.js': third, 'http/b.test.js': third, 'http/c.test.js': third + 1, 'http/d.test.js': 10, 'fidelity/long.test.js': GATEWAY_GROUP_MS, 'tools/jobs/store/x.test.js': GATEWAY_GROUP_MS, 'tools/jobs/run.test.js': 5, 'platform/spawning/orphans-healthz.test.js': 5 };
  assert.deepEqual(runUnits(files, unit, durations), [
    { group: 'gateway/http#1', files: ['http/a.test.js', 'http/b.test.js'] },
    { group: 'gateway/http#2', files: ['http/c.test.js', 'http/d.test.js'] },
    { group: 'gateway/tools/jobs', files: ['tools/jobs/run.test.js'] },
    { group: 'tools/jobs', files: ['tools/jobs/store/x.test.js'] },
    { files: ['fidelity/long.test.js'] },
    { files: ['http/new.test.js'] },
    { files: ['platform/spawning/orphans-healthz.test.js'] },
  ]);
  const dir = temp.make('hmcp-gateway-groups-');
  const modules = writeRunUnits([{ group: 'gateway/http#2', files: ['http/c.test.js'] }, { group: 'tools/jobs', files: ['tools/jobs/store/x.test.js'] }, { files: ['http/new.test.js'] }], '/t', dir);
  assert.deepEqual(modules, [join(dir, 'gateway-http-2.test.mjs'), join(dir, 'unit-tools-jobs.test.mjs'), '/t/http/new.test.js']);
});

/** Runs scripts/test-pass.js over `files`, with the durations written to `durations`. */
function pass(files: string[], durations: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, HMCP_TEST_DURATIONS: durations };
  delete env.NODE_TEST_CONTEXT;
  return spawnSync(process.execPath, [join(root, 'dist', 'scripts', 'test-pass.js'), '--concurrency=1', '--reporter=tap', ...files], { encoding: 'utf8', env });
}

test("a group's files run in one process, each in a suite named after it, its top-level hooks its own, its time recorded under its own path", () => {
  const dir = temp.make('hmcp-unit-groups-');
  const tests = join(dir, 'tests');
  const write = (name: string, body: string) => writeFileSync(join(tests, name), `import assert from 'node:assert/strict';\nimport { test, beforeEach, after } from 'node:test';\n${body}\n`);
  mkdirSync(join(tests, 'core'), { recursive: true });
  write('core/a.test.mjs', "await new Promise((r) => setTimeout(r, 5));\nbeforeEach(() => { globalThis.hooked = (globalThis.hooked ?? 0) + 1; });\nafter(() => { globalThis.aDone = true; });\ntest('a1', () => assert.equal(globalThis.hooked, 1));\ntest('a2', () => assert.equal(globalThis.hooked, 2));");
  write('core/b.test.mjs', "test('b sees no hook of a, after a ended, in the same process', () => { assert.equal(globalThis.hooked, 2); assert.equal(globalThis.aDone, true); });");
  const [module] = writeRunUnits([{ group: 'core', files: ['core/a.test.mjs', 'core/b.test.mjs'] }], tests, dir);
  assert.equal(module, join(dir, 'unit-core.test.mjs'));
  const durations = join(dir, 'durations.jsonl');
  const r = pass([module!], durations);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^# tests 3$/m);
  assert.match(r.stdout, /^# Subtest: core\/a\.test\.mjs$/m);
  assert.match(r.stdout, /^ {4}ok 1 - a1$/m, "a's tests are reported inside its suite");
  assert.match(r.stdout, /^# Subtest: core\/b\.test\.mjs$/m);
  const recorded = readFileSync(durations, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { file: string; ms: number });
  assert.deepEqual(recorded.map((d) => d.file).filter((f) => f.startsWith(tests)), [join(tests, 'core/a.test.mjs'), join(tests, 'core/b.test.mjs')]);
  assert.ok(recorded.every((d) => Number.isInteger(d.ms) && d.ms >= 0));
  // A failure in one file fails the pass, under that file's name.
  write('core/b.test.mjs', "test('b fails', () => assert.fail('no'));");
  const failing = pass([module!], join(dir, 'again.jsonl'));
  assert.equal(failing.status, 1);
  assert.match(failing.stdout, /^not ok 2 - core\/b\.test\.mjs$/m);
});

test('every test that makes its process a subreaper runs alone, and no test helper declares a top-level hook', () => {
  const tests = (readdirSync(join(root, 'tests'), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.test.ts'));
  const subreapers = tests.filter((f) => /^import \{[^}]*\bbecomeSubreaper\b[^}]*\} from '[./]+\/shared\/subreaper\.js';$/m.test(readFileSync(join(root, 'tests', f), 'utf8'))).map((f) => f.replace(/\.ts$/, '.js'));
  assert.ok(subreapers.some((f) => mirroredTests(root).includes(f)) && subreapers.some((f) => !mirroredTests(root).includes(f)), 'the subreaper tests are found, unit and whole-gateway');
  assert.deepEqual(subreapers.filter((f) => !OWN_PROCESS.includes(f)), []);
  const helpers = (readdirSync(join(root, 'tests'), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  assert.ok(helpers.includes(join('helpers', 'temp.ts')));
  const hooked = helpers.filter((f) => /^(before|after|beforeEach|afterEach)\(/m.test(readFileSync(join(root, 'tests', f), 'utf8')));
  assert.deepEqual(hooked, []);
});
