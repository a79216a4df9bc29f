import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  applyMutation,
  fidelitySurfaces,
  judgeRun,
  loadMutations,
  mutationProblem,
  MUTATIONS_FILE,
  parseShare,
  shareOf,
  stageMutantTree,
  survivorReport,
  type DumpedVerdict,
  type Mutation,
} from '../../scripts/mutation-corpus.js';
import { packageRoot } from '../../shared/package-root.js';
import { tempDirs } from '../helpers/temp.js';

// The mutation test's own parts (scripts/mutation-corpus.ts): the corpus is checked when loaded, a
// mutation applies only where its `find` occurs exactly once, it is made in a copy (the checkout's
// dist stays as built), and a mutant run counts as caught only on a fidelity verdict.

const temp = tempDirs();
test.after(() => temp.removeAll());

const mutation = (over: Partial<Mutation> = {}): Mutation => ({ id: 'm', surface: 'read_file', file: 'supervisor/x.ts', find: 'a + 1', replace: 'a + 2', what: 'off by one', ...over });

function corpusFile(text: string): string {
  const file = join(temp.make('hmcp-mutation-corpus-'), 'mutations.yaml');
  writeFileSync(file, text);
  return file;
}

test('the corpus is refused when an entry is incomplete, repeated, of an unknown surface or changes nothing', () => {
  const entry = (id: string, extra = '') => `- { id: ${id}, surface: read_file, file: a.ts, find: 'x', replace: 'y', what: w${extra} }\n`;
  assert.equal(loadMutations(corpusFile(entry('a') + entry('b', ', hermes: newest')), ['read_file'])[1]!.hermes, 'newest');
  assert.throws(() => loadMutations(corpusFile(entry('a') + entry('a')), ['read_file']), /a: the id is used twice/);
  assert.throws(() => loadMutations(corpusFile(entry('a')), ['terminal']), /surface read_file has no fidelity test file/);
  assert.throws(() => loadMutations(corpusFile('- { id: a, surface: read_file, file: a.ts, find: x, what: w }\n'), ['read_file']), /`replace` must be a string/);
  assert.throws(() => loadMutations(corpusFile("- { id: a, surface: read_file, file: a.ts, find: x, replace: x, what: w }\n"), ['read_file']), /`replace` equals `find`/);
  assert.throws(() => loadMutations(corpusFile(entry('a', ', hermes: latest')), ['read_file']), /hermes must be one of oldest, newest/);
  assert.throws(() => loadMutations(corpusFile(entry('a', ', note: x')), ['read_file']), /unknown field\(s\) note/);
});

test('a mutation applies only where its find occurs exactly once, and is undone', () => {
  const root = temp.make('hmcp-mutation-apply-');
  mkdirSync(join(root, 'dist', 'supervisor'), { recursive: true });
  const built = join(root, 'dist', 'supervisor', 'x.js');
  writeFileSync(built, 'const b = a + 1;\nconst c = a + 10;\n');
  assert.equal(mutationProblem(root, mutation()), 'm: `find` occurs 2 times in dist/supervisor/x.js, not exactly once');
  assert.throws(() => applyMutation(root, mutation()), /occurs 2 times/);
  assert.throws(() => applyMutation(root, mutation({ find: 'a + 3' })), /occurs 0 times/);
  assert.throws(() => applyMutation(root, mutation({ file: 'supervisor/y.ts' })), /dist\/supervisor\/y\.js does not exist/);
  const undo = applyMutation(root, mutation({ find: 'a + 1;' , replace: 'a + 2;' }));
  assert.equal(readFileSync(built, 'utf8'), 'const b = a + 2;\nconst c = a + 10;\n');
  undo();
  assert.equal(readFileSync(built, 'utf8'), 'const b = a + 1;\nconst c = a + 10;\n');
  // A file that is not TypeScript is changed as it is (Python run by a worker, policy data).
  writeFileSync(join(root, 'rules.json'), '{"p": "a + 1"}');
  applyMutation(root, mutation({ file: 'rules.json' }));
  assert.equal(readFileSync(join(root, 'rules.json'), 'utf8'), '{"p": "a + 2"}');
});

test('the mutant tree is a copy: a mutation made there leaves the checkout as built', () => {
  const root = temp.make('hmcp-mutation-root-');
  mkdirSync(join(root, 'dist', 'supervisor'), { recursive: true });
  mkdirSync(join(root, 'node_modules', 'yaml'), { recursive: true });
  mkdirSync(join(root, '.cache', 'hermes-venv'), { recursive: true });
  mkdirSync(join(root, '.cache', 'fidelity-report', 'oldest'), { recursive: true });
  mkdirSync(join(root, 'policy'));
  writeFileSync(join(root, 'package.json'), '{}');
  writeFileSync(join(root, 'policy', 'rules.json'), '{"p": "a + 1"}');
  writeFileSync(join(root, 'dist', 'supervisor', 'x.js'), 'const b = a + 1;\n');
  const copy = join(temp.make('hmcp-mutation-copy-'), 'tree');
  stageMutantTree(root, copy);
  applyMutation(copy, mutation());
  applyMutation(copy, mutation({ file: 'policy/rules.json' }));
  assert.equal(readFileSync(join(copy, 'dist', 'supervisor', 'x.js'), 'utf8'), 'const b = a + 2;\n');
  assert.equal(readFileSync(join(root, 'dist', 'supervisor', 'x.js'), 'utf8'), 'const b = a + 1;\n');
  assert.equal(readFileSync(join(root, 'policy', 'rules.json'), 'utf8'), '{"p": "a + 1"}');
  assert.ok(lstatSync(join(copy, 'node_modules')).isSymbolicLink());
  assert.ok(lstatSync(join(copy, '.cache', 'hermes-venv')).isSymbolicLink());
  // The copy's tallies are its own: the checkout's fidelity report is not linked in.
  assert.equal(existsSync(join(copy, '.cache', 'fidelity-report')), false);
  assert.ok(existsSync(join(copy, 'package.json')));
});

test('every mutation of the corpus applies to the built tree', () => {
  const root = packageRoot();
  const corpus = loadMutations(join(root, MUTATIONS_FILE), fidelitySurfaces(root));
  assert.ok(corpus.length >= 45, `${corpus.length} mutations`);
  assert.deepEqual(corpus.map((m) => mutationProblem(root, m)).filter((p) => p !== null), []);
});

test('a mutant run is caught only on a fidelity verdict', () => {
  const differs = { name: 'read_file: crlf', failureType: 'testCodeFailure', code: 'ERR_ASSERTION', message: 'read_file/crlf (mcp) differs in content' };
  const unseen = { name: 'read_file: every listed divergence is shown', failureType: 'testCodeFailure', code: 'ERR_ASSERTION', message: 'Expected values to be strictly deep-equal' };
  const failed = { code: 1, timedOut: false };
  assert.equal(judgeRun('read_file', { code: 0, timedOut: false }, []).outcome, 'survived');
  assert.equal(judgeRun('read_file', failed, [differs, unseen]).outcome, 'caught');
  // A hook that threw, a timeout, a file that did not load, a missing answer, an exit without a failed test: broken.
  assert.equal(judgeRun('read_file', failed, [differs, { ...differs, failureType: 'hookFailed', code: 'ECONNREFUSED' }]).outcome, 'broken');
  assert.equal(judgeRun('read_file', { code: null, timedOut: true }, [differs]).outcome, 'broken');
  assert.equal(judgeRun('read_file', failed, [{ name: '/x/dist/tests/fidelity/read-file.test.js', failureType: 'testCodeFailure', message: 'test failed' }]).outcome, 'broken');
  assert.equal(judgeRun('read_file', failed, [{ ...differs, message: 'no way of reaching the gateway answered crlf' }]).outcome, 'broken');
  assert.equal(judgeRun('read_file', failed, [{ ...differs, code: 'ERR_INVALID_ARG_TYPE' }]).outcome, 'broken');
  assert.equal(judgeRun('read_file', failed, []).outcome, 'broken');
  assert.equal(judgeRun('read_file', failed, [{ ...differs, name: 'terminal: x' }]).outcome, 'broken');
  // A surface failing unmutated: only a failure it does not have there is the mutation's.
  assert.equal(judgeRun('read_file', failed, [unseen], [unseen]).outcome, 'survived');
  assert.equal(judgeRun('read_file', failed, [unseen, differs], [unseen]).outcome, 'caught');
  assert.equal(judgeRun('read_file', failed, [{ ...unseen, message: 'Expected values to be strictly deep-equal, and more' }], [unseen]).outcome, 'caught');
});

test('the shares of the corpus split it: each mutation in exactly one share, of about equal time, by day of the year when asked', () => {
  const seconds = { process: 120, cronjob: 75, browser: 60, read_file: 10 };
  const list = [...Array.from({ length: 4 }, (_, i) => mutation({ id: `p${i}`, surface: 'process' })), ...Array.from({ length: 3 }, (_, i) => mutation({ id: `c${i}`, surface: 'cronjob' })), ...Array.from({ length: 3 }, (_, i) => mutation({ id: `b${i}`, surface: 'browser' })), ...Array.from({ length: 30 }, (_, i) => mutation({ id: `r${i}` }))];
  const shares = Array.from({ length: 8 }, (_, k) => shareOf(list, k, 8, seconds));
  assert.deepEqual(shares.flat().map((m) => m.id).sort(), list.map((m) => m.id).sort());
  const times = shares.map((s) => s.reduce((t, m) => t + seconds[m.surface as keyof typeof seconds], 0));
  // 1185 s in all: no share over its eighth by more than one mutation's time.
  assert.ok(Math.max(...times) <= 1185 / 8 + 120, times.join(' '));
  assert.ok(shares.every((s) => s.filter((m) => m.surface === 'process').length <= 1));
  // In corpus order within a share, and the same shares every time.
  assert.deepEqual(shareOf(list, 3, 8, seconds), shares[3]);
  assert.deepEqual(parseShare('3/8'), { k: 3, n: 8 });
  assert.deepEqual(parseShare('day/8', new Date(Date.UTC(2026, 0, 1))), { k: 0, n: 8 });
  assert.deepEqual(parseShare('day/8', new Date(Date.UTC(2026, 1, 10))), { k: 40 % 8, n: 8 });
  assert.throws(() => parseShare('8/8'), /K must be below N/);
  assert.throws(() => parseShare('1/0'), /--share must be/);
});

test('a survivor is explained by the cases it changed and the divergences that excused them', () => {
  const v = (c: string, gateway: unknown, divergences: string[] = []): DumpedVerdict => ({ case: c, via: 'mcp', verdict: divergences.length > 0 ? 'divergent' : 'equal', fields: divergences.length > 0 ? ['n'] : [], divergences, gateway });
  const control = [v('a', { n: 1 }), v('b', { n: 2, m: 1 }, ['read-file-budget'])];
  assert.equal(survivorReport(control, [v('a', { n: 1 }), v('b', { n: 3, m: 1 }, ['read-file-budget'])]), '1 answer(s) changed, e.g. b (mcp) [n]; excused by read-file-budget');
  assert.equal(survivorReport(control, control), "no case's gateway answer changed: no case exercises it");
  // A value equal to Hermes' in both runs (a time both sides took from the run) is not the mutation's.
  assert.equal(survivorReport(control, [v('a', { n: 5 }), v('b', { n: 2, m: 1 }, ['read-file-budget'])]), "no case's gateway answer changed: no case exercises it");
  assert.match(survivorReport(undefined, control), /wrote no verdicts/);
});
