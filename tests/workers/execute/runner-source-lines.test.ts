// The script's source lines with a real interpreter (/usr/bin/python3 runner.py, code on stdin):
// linecache is not imported before the script runs (it would cost every prepared unit), yet
// whatever imports it later (traceback, inspect, warnings, the runner's own uncaught-exception
// report) finds the script's lines, decoded as the compiler decoded them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { within } from '../../helpers/wait.js';

// This file runs from dist/; the .py files are read from the source tree.
const RUNNER_PY = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../../..'), 'workers/execute/runner.py');

function run(code: Buffer | string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('/usr/bin/python3', [RUNNER_PY], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(code);
  return within(new Promise((done) => child.once('close', (c) => done({ code: c, stdout, stderr }))), 15_000, 'the runner');
}

test('linecache (and tokenize) are not loaded before the script needs them', async () => {
  const r = await run('import sys\nprint("linecache" in sys.modules, "tokenize" in sys.modules)');
  assert.equal(r.stdout, 'False False\n', r.stderr);
});

test('traceback.format_exc and inspect.getsource inside the script show its lines', async () => {
  const code = ['import traceback', 'def f():', '    raise ValueError("boom")', 'try:', '    f()', 'except ValueError:', '    print(traceback.format_exc())', 'import inspect', 'print(inspect.getsource(f))'].join('\n');
  const r = await run(code);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /File "<execute_code>", line 3, in f\n {4}raise ValueError\("boom"\)\n/);
  assert.match(r.stdout, /def f\(\):\n {4}raise ValueError\("boom"\)\n/);
});

test('a warning shows the line that raised it', async () => {
  const r = await run('import warnings\nwarnings.warn("careful")\n');
  assert.match(r.stderr, /<execute_code>:2: UserWarning: careful\n {2}warnings\.warn\("careful"\)/);
});

test('the uncaught-exception report shows the source, decoded per the PEP 263 cookie', async () => {
  const code = Buffer.concat([Buffer.from('# -*- coding: latin-1 -*-\nx = "'), Buffer.from([0xe9]), Buffer.from('"\nraise KeyError(x)\n')]);
  const r = await run(code);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /File "<execute_code>", line 3, in <module>\n {4}raise KeyError\(x\)\nKeyError: 'é'/);
});
