import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { PYTHON_WHITESPACE, pythonStrip } from '../../shared/python-strip.js';
import { hermes } from '../helpers/hermes.js';

test("PYTHON_WHITESPACE is exactly the BMP characters Python's str.isspace() accepts", () => {
  const run = spawnSync(hermes().python, ['-c', 'import json; print(json.dumps([c for c in map(chr, range(0x10000)) if c.isspace()]))'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual([...PYTHON_WHITESPACE], JSON.parse(run.stdout) as string[]);
});

test('pythonStrip removes what Python counts as whitespace from both ends, no more', () => {
  assert.equal(pythonStrip('\x1c\x85 a b \u3000\n'), 'a b');
  assert.equal(pythonStrip('\x1f\x1dgit push\t\u2028\u205f'), 'git push');
  assert.equal(pythonStrip('\ufeffa\ufeff'), '\ufeffa\ufeff', 'U+FEFF is not whitespace to Python (JavaScript trim() removes it)');
  assert.equal(pythonStrip('\u200ba'), '\u200ba', 'a zero-width space is not whitespace');
  assert.equal(pythonStrip(' a \x1c b '), 'a \x1c b', 'inner whitespace stays');
  assert.equal(pythonStrip(PYTHON_WHITESPACE), '', 'all whitespace strips to nothing');
  assert.equal(pythonStrip(''), '');
  assert.equal(pythonStrip('x'), 'x');
});

test('pythonStrip agrees with Python on mixed edges', () => {
  const samples = ['\x1c\x1d\x1e\x1f', '\xa0 x \u1680', '\ufeff x \ufeff', '\u180e x', '\x00 x \x00', '\u2000\u200a y \u2029'];
  const run = spawnSync(hermes().python, ['-c', 'import json,sys; print(json.dumps([s.strip() for s in json.load(sys.stdin)]))'], { input: JSON.stringify(samples), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(samples.map(pythonStrip), JSON.parse(run.stdout) as string[]);
});
