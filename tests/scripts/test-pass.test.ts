import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { tempDirs } from '../helpers/temp.js';

// One pass of the suite (scripts/test-pass.ts): node's runner over the files in the order given,
// its exit status from the tests' results.

const temp = tempDirs();
after(() => temp.removeAll());
const testPass = join(packageRoot(), 'dist', 'scripts', 'test-pass.js');

function files(dir: string, bodies: Record<string, string>): string[] {
  return Object.entries(bodies).map(([name, body]) => {
    const file = join(dir, name);
    writeFileSync(file, `import { test } from 'node:test';\nimport { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(join(dir, 'started'))}, ${JSON.stringify(`${name}\n`)});\n${body}\n`);
    return file;
  });
}

function pass(list: string[], concurrency = 1) {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return spawnSync(process.execPath, [testPass, `--concurrency=${concurrency}`, '--reporter=tap', ...list], { encoding: 'utf8', env });
}

test('the files start in the order given, not by name; every test passing is status 0', () => {
  const dir = temp.make('hmcp-test-pass-');
  const list = files(dir, { 'z.test.mjs': "test('z', () => {});", 'a.test.mjs': "test('a', () => {});", 'm.test.mjs': "test('m', { todo: true }, () => { throw new Error('not yet'); });" });
  const r = pass(list);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.deepEqual(readFileSync(join(dir, 'started'), 'utf8').trim().split('\n'), ['z.test.mjs', 'a.test.mjs', 'm.test.mjs']);
  assert.match(r.stdout, /^# tests 3$/m);
  assert.match(r.stdout, /^# todo 1$/m, "a failing todo test is reported, and does not fail the pass");
});

test('a failing test, or a file that fails outside any test, is status 1', () => {
  const dir = temp.make('hmcp-test-pass-');
  const [failing, passing] = files(dir, { 'f.test.mjs': "test('f', () => { throw new Error('boom'); });", 'p.test.mjs': "test('p', () => {});" });
  const r = pass([failing!, passing!], 2);
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^# fail 1$/m);
  const [crashing] = files(dir, { 'c.test.mjs': "process.exit(3);" });
  assert.equal(pass([crashing!, passing!]).status, 1);
  assert.equal(pass([passing!]).status, 0);
});

test('no file, or a concurrency that is no count: a usage error', () => {
  assert.equal(pass([]).status, 2);
  const dir = temp.make('hmcp-test-pass-');
  assert.equal(pass(files(dir, { 'p.test.mjs': "test('p', () => {});" }), 0).status, 2);
});
