import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { EVERY_HERMES, EVERY_NODE, filesForPin, runArguments, runStatus, shareOut, testFiles } from '../../scripts/test-files.js';
import { tempDirs } from '../helpers/temp.js';

// Which compiled test files a run selects (run-tests.js, test-on-node.js), and how --split shares
// a suite between Node versions without leaving a file out.

const temp = tempDirs();
after(() => temp.removeAll());

function tree(files: string[]): string {
  const dir = temp.make('hmcp-test-files-');
  for (const f of files) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), '');
  }
  return dir;
}

test('prefixes select, ! prefixes leave out, tests/ and dist/tests/ in front are dropped, only .test.js files count', () => {
  const dir = tree(['core/a.test.js', 'core/b.test.js', 'core/helper.js', 'fidelity/x.test.js', 'http/app-view/view-browser.test.js', 'http/mcp/m.test.js']);
  const sel = (...args: string[]) => testFiles(dir, args).map((f) => relative(dir, f));
  assert.deepEqual(sel(), ['core/a.test.js', 'core/b.test.js', 'fidelity/x.test.js', 'http/app-view/view-browser.test.js', 'http/mcp/m.test.js']);
  assert.deepEqual(sel('tests/core/'), ['core/a.test.js', 'core/b.test.js']);
  assert.deepEqual(sel('!fidelity/', '!dist/tests/http/app-view/view-browser'), ['core/a.test.js', 'core/b.test.js', 'http/mcp/m.test.js']);
  assert.deepEqual(sel('core/b.test.js'), ['core/b.test.js'], 'a file name selects that file');
});

test('a split suite: the version-sensitive files on every Node, each other file on exactly one, shares within one file of each other', () => {
  const files = ['core/a.test.js', 'core/b.test.js', 'core/c.test.js', 'docs/d.test.js', 'tools/jobs/j.test.js', 'tools/files/f.test.js', 'workers/w.test.js'];
  const [first, second] = shareOut(files, 2) as [string[], string[]];
  for (const f of files.filter((f) => EVERY_NODE.some((p) => f.startsWith(p)))) {
    assert.ok(first.includes(f) && second.includes(f), `${f} runs on both`);
  }
  const others = files.filter((f) => !EVERY_NODE.some((p) => f.startsWith(p)));
  for (const f of others) assert.equal(Number(first.includes(f)) + Number(second.includes(f)), 1, `${f} runs on exactly one`);
  assert.ok(Math.abs(first.length - second.length) <= 1);
  assert.deepEqual(shareOut(files, 1), [[...files].sort()], 'one Node runs them all');
});

test('--hermes chooses the Hermes pins the selected files run against (both by default); the rest are test prefixes', () => {
  assert.deepEqual(runArguments(['tools/jobs', '!fidelity/']), { prefixes: ['tools/jobs', '!fidelity/'], pins: ['oldest', 'newest'] });
  assert.deepEqual(runArguments(['--hermes=oldest', 'fidelity/']), { prefixes: ['fidelity/'], pins: ['oldest'] });
  assert.deepEqual(runArguments(['--hermes=newest']), { prefixes: [], pins: ['newest'] });
  assert.deepEqual(runArguments(['--hermes=both']).pins, ['oldest', 'newest']);
  assert.throws(() => runArguments(['--hermes=0.22']), /--hermes must be one of oldest, newest, both, got "0.22"/);
});

test('every selected file runs against the oldest Hermes; only those comparing with a real Hermes run against the newest', () => {
  const files = ['fidelity/read-file.test.js', 'tools/jobs/runner.test.js', 'tools/hermes-tools/real-calls.test.js', 'tools/hermes-tools/standin-cancel.test.js', 'tools/guarded/session-search.test.js'];
  assert.deepEqual(filesForPin(files, 'oldest'), files);
  assert.deepEqual(filesForPin(files, 'newest'), ['fidelity/read-file.test.js', 'tools/hermes-tools/real-calls.test.js', 'tools/guarded/session-search.test.js']);
  for (const prefix of EVERY_HERMES) assert.ok(!prefix.startsWith('/') && prefix.length > 0, prefix);
});

test("run-tests' status: a failing pass's, else the stopping signal's (one between passes too), else 0", () => {
  assert.equal(runStatus(0), 0);
  assert.equal(runStatus(1), 1);
  assert.equal(runStatus(1, 'SIGINT'), 1, "a failed pass's status stands");
  assert.equal(runStatus(0, 'SIGINT'), 130, 'the first pass passed, then a signal: not a pass');
  assert.equal(runStatus(0, 'SIGTERM'), 143);
});
