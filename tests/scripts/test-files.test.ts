import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { EVERY_HERMES, EVERY_NODE, filesForPin, longestFirst, mirroredTests, mirrorOf, runArguments, runStatus, shareOut, testFiles } from '../../scripts/test-files.js';
import { knownDurations, parseRecorded, recordDurations } from '../../scripts/test-durations.js';
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

test('the unit tests are the test files mirroring a product file, found from the product tree', () => {
  assert.equal(mirrorOf('supervisor/core/gateway.ts'), 'core/gateway.test.js');
  assert.equal(mirrorOf('supervisor/tools/files/read/index.ts'), 'tools/files/read/index.test.js');
  assert.equal(mirrorOf('shared/limits.ts'), 'shared/limits.test.js');
  assert.equal(mirrorOf('workers/frames.ts'), 'workers/frames.test.js');
  const dir = tree([
    'supervisor/core/a.ts',
    'supervisor/tools/files/read/index.ts',
    'supervisor/tools/files/write/index.ts',
    'shared/s.ts',
    'workers/w.ts',
    'bin/b.ts',
    'tests/core/a.test.ts',
    'tests/core/gateway-flow.test.ts',
    'tests/tools/files/read/index.test.ts',
    'tests/shared/s.test.ts',
    'tests/shared/other.test.ts',
    'tests/workers/w.test.ts',
    'tests/scripts/x.test.ts',
  ]);
  assert.deepEqual(mirroredTests(dir), ['core/a.test.js', 'shared/s.test.js', 'tools/files/read/index.test.js', 'workers/w.test.js']);
  writeFileSync(join(dir, 'tests', 'tools', 'files', 'write-flow.test.ts'), '');
  mkdirSync(join(dir, 'tests', 'bin'));
  writeFileSync(join(dir, 'tests', 'bin', 'b.test.ts'), '');
  assert.deepEqual(mirroredTests(dir), ['bin/b.test.js', 'core/a.test.js', 'shared/s.test.js', 'tools/files/read/index.test.js', 'workers/w.test.js'], 'a test written at its mirrored path joins');
});

test('a pass starts its files longest first, a file never measured before all', () => {
  const durations = { 'a.test.js': 1000, 'b.test.js': 90_000, 'c.test.js': 5000, 'gone.test.js': 999_999 };
  assert.deepEqual(longestFirst(['a.test.js', 'b.test.js', 'c.test.js', 'new.test.js', 'd-new.test.js'], durations), ['d-new.test.js', 'new.test.js', 'b.test.js', 'c.test.js', 'a.test.js']);
  assert.deepEqual(longestFirst(['b.test.js', 'a.test.js'], {}), ['a.test.js', 'b.test.js'], 'by name when nothing was measured');
});

test('measured durations: read from what the test files recorded, kept per pin over the committed ones', () => {
  const dir = temp.make('hmcp-durations-');
  const testsDir = join(dir, 'dist', 'tests');
  const lines = [
    JSON.stringify({ file: join(testsDir, 'core', 'a.test.js'), ms: 1234 }),
    JSON.stringify({ file: join(testsDir, 'fidelity', 'b.test.js'), ms: 56_789 }),
    JSON.stringify({ file: join(dir, 'elsewhere.test.js'), ms: 1 }),
    JSON.stringify({ file: join(testsDir, 'helpers', 'spawned.js'), ms: 1 }),
    '{"file": "cut sh',
  ].join('\n');
  assert.deepEqual(parseRecorded(lines, testsDir), { 'core/a.test.js': 1234, 'fidelity/b.test.js': 56_789 });
  mkdirSync(join(dir, 'scripts'));
  writeFileSync(join(dir, 'scripts', 'test-durations.json'), JSON.stringify({ oldest: { 'core/a.test.js': 9000, 'core/c.test.js': 7000 }, newest: { 'fidelity/b.test.js': 1000 } }));
  assert.deepEqual(knownDurations(dir, 'oldest'), { 'core/a.test.js': 9000, 'core/c.test.js': 7000 }, 'the committed ones before any run here');
  recordDurations(dir, { oldest: parseRecorded(lines, testsDir) });
  assert.deepEqual(knownDurations(dir, 'oldest'), { 'core/a.test.js': 1200, 'core/c.test.js': 7000, 'fidelity/b.test.js': 56_800 }, 'measured here, in hundreds of ms');
  assert.deepEqual(knownDurations(dir, 'newest'), { 'fidelity/b.test.js': 1000 });
  recordDurations(dir, { newest: { 'fidelity/b.test.js': 20 } });
  assert.deepEqual(knownDurations(dir, 'newest'), { 'fidelity/b.test.js': 100 });
  assert.equal(knownDurations(dir, 'oldest')['core/a.test.js'], 1200, 'a pass that did not run keeps its measures');
  writeFileSync(join(dir, '.cache', 'test-durations.json'), 'not json');
  assert.deepEqual(knownDurations(dir, 'oldest'), { 'core/a.test.js': 9000, 'core/c.test.js': 7000 }, 'an unreadable table only loses the order');
});
