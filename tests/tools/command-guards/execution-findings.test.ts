import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverBudget, segmentWords, type Budget } from '../../../supervisor/tools/command-guards/command-words.js';
import { EXECUTION_FINDING_KEYS, executionFindings, MALFORMED_EXEC_KEY, programPayloads, type Finding } from '../../../supervisor/tools/command-guards/execution-findings.js';

// How a command runs programs it was handed: inline interpreter code, a shell's -c, a read tool's
// program option; and the program texts handed over, followed recursively.

const plenty = (): Budget => ({ left: 1_000_000 });
const findings = (c: string): Finding[] => executionFindings(segmentWords(c, plenty()), plenty());
const keys = (c: string) => findings(c).map((f) => f.key);
const INLINE = 'script execution via -e/-c flag';

test("an interpreter's inline-code option is found, per family, past options that take a value", () => {
  for (const c of ["python3 -c 'print(1)'", 'python -W ignore -c x', 'node --require x -e 1', 'perl -ne 1', 'pwsh -Command x', 'deno eval x', 'sudo /usr/bin/python3.11 -c x', 'ruby -e x', 'php -r x', 'bun --eval x', 'py.exe -c x']) {
    assert.deepEqual(findings(c), [{ key: INLINE, payload: null }], c);
  }
});

test("an option's attached value is not read as flags; a script file is no finding", () => {
  assert.deepEqual(keys('python -Wc x'), [], '-Wc is -W with the value c');
  assert.deepEqual(keys('python3 app.py -c x'), [], 'options after the script are its own');
  assert.deepEqual(keys('node app.js'), []);
  assert.deepEqual(keys('pythonista -c x'), [], 'not an interpreter name');
});

test('a heredoc fed to an interpreter is a finding of its own', () => {
  assert.deepEqual(findings('python3 <<EOF'), [{ key: 'script execution via heredoc', payload: null }]);
});

test("a shell's -c carries its command string as the payload", () => {
  assert.deepEqual(findings("bash -lc 'rm -rf /'"), [{ key: 'shell command via -c/-lc flag', payload: 'rm -rf /' }]);
  assert.deepEqual(findings("sh -o pipefail -c 'ls'"), [{ key: 'shell command via -c/-lc flag', payload: 'ls' }], "-o's value skipped");
  assert.deepEqual(findings('bash -c'), [{ key: 'shell command via -c/-lc flag', payload: null }]);
  assert.deepEqual(findings('bash script.sh'), []);
  assert.deepEqual(findings("bash 'x"), [], 'an unreadable shell line is no finding');
});

test("a read tool's program option carries the program, attached or in the next word", () => {
  assert.deepEqual(findings("rg --pre 'sh -c x' p"), [{ key: 'arbitrary program execution via rg --pre', payload: 'sh -c x' }]);
  assert.deepEqual(findings('rg --pre=cat p'), [{ key: 'arbitrary program execution via rg --pre', payload: 'cat' }]);
  assert.deepEqual(findings('rg -e x --pre cat'), [{ key: 'arbitrary program execution via rg --pre', payload: 'cat' }], "-e's value skipped");
  assert.deepEqual(findings('sort --compress-program=gzip f'), [{ key: 'arbitrary program execution via sort --compress-program', payload: 'gzip' }]);
  assert.deepEqual(findings('man -Pless ls'), [{ key: 'arbitrary program execution via man -P', payload: 'less' }]);
  assert.deepEqual(findings('rg -- --pre cat'), [], 'after -- it is a pattern');
});

test('an interpreter or read tool whose arguments cannot be read is the malformed finding', () => {
  assert.deepEqual(findings("python 'x"), [{ key: MALFORMED_EXEC_KEY, payload: null }]);
  assert.deepEqual(findings("rg 'x"), [{ key: MALFORMED_EXEC_KEY, payload: null }]);
});

test('EXECUTION_FINDING_KEYS names every key a finding carries (the malformed one aside)', () => {
  assert.equal(EXECUTION_FINDING_KEYS.length, 3 + 2 + 1 + 1 + 4);
  for (const c of ['python -c x', 'python <<E', 'bash -c x', 'rg --pre x', 'rg --hostname-bin x', 'sort --compress-program x', 'ag --pager x', 'man --pager x', 'man --html x', 'man -P x', 'man -H x']) {
    for (const key of keys(c)) assert.ok(EXECUTION_FINDING_KEYS.includes(key), `${c}: ${key}`);
  }
});

test('programPayloads follows nested payloads once each, in order', () => {
  const c = `bash -c 'sh -c "rg --pre cat x"'`;
  assert.deepEqual(programPayloads(c, findings(c), plenty()), ['sh -c "rg --pre cat x"', 'rg --pre cat x', 'cat']);
  const loop = `bash -c 'bash -c x' ; bash -c 'bash -c x'`;
  assert.deepEqual(programPayloads(loop, findings(loop), plenty()), ['bash -c x', 'x'], 'a payload seen once is not read again');
  assert.deepEqual(programPayloads('ls', [], plenty()), []);
});

test('the budget bounds the reading: a command needing more throws OverBudget', () => {
  const c = `python3 ${'-W x '.repeat(50)}-c y`;
  assert.throws(() => executionFindings(segmentWords(c, plenty()), { left: 20 }), OverBudget);
});
