import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signalExitNote, terminalHint } from '../../../../supervisor/tools/processes/terminal/hints.js';

// The rules re-expressed from Hermes 0.22.2 (tools/terminal_tool_result.py _interpret_signal_exit,
// tools/terminal_hints.py), each checked on the shapes Hermes' own module
// documents; the fidelity suite compares the same rules with the installed Hermes.

test('signal notes: 128+N for the curated signals, -N as subprocess reports it, none for SIGINT or an ordinary code', () => {
  assert.equal(signalExitNote(143), 'Exit code 143 usually means the command was terminated by signal 15: SIGTERM (terminated — kill/timeout or shutdown requested it to stop)');
  assert.equal(signalExitNote(139), 'Exit code 139 usually means the command was terminated by signal 11: SIGSEGV (segmentation fault — the program crashed)');
  assert.equal(signalExitNote(-9), 'Command terminated by signal 9: SIGKILL — often the kernel OOM killer on memory exhaustion, or an explicit kill -9');
  assert.equal(signalExitNote(-1), 'Command terminated by SIGHUP (signal 1)');
  for (const code of [130, -2, 1, 2, 126, 127, 128, 129, 150]) assert.equal(signalExitNote(code), undefined, String(code));
});

test('failure hints: the first output pattern wins, then the exit code; none where the code has a meaning', () => {
  const hint = (command: string, code: number, output: string, meaning?: string) => terminalHint(command, code, output, meaning, 30);
  assert.equal(hint('xyzzy', 127, 'bash: line 1: xyzzy: command not found'), '`xyzzy` is not installed or not on PATH. Verify with `which xyzzy`; install it or use an absolute path instead of retrying the same command.');
  assert.match(hint('python x.py', 127, 'bash: python: command not found')!, /^This system has no bare `python`/);
  assert.match(hint('python3 m.py', 1, "ModuleNotFoundError: No module named 'yaml'")!, /^Python cannot import 'yaml'\./);
  assert.match(hint('git merge b', 1, 'CONFLICT (content): Merge conflict in a\nAutomatic merge failed')!, /^Git merge conflict\./);
  assert.match(hint('./run', 126, './run: Permission denied')!, /^Permission denied\./, 'an output pattern before the exit code');
  assert.match(hint('./run', 126, '')!, /^Exit 126: the file was found but is not executable/);
  assert.match(hint('sleep 9', 124, '[Command timed out after 1s]')!, /^Exit 124: .* \(at most 30s here\) or run it as a job \(job_prepare \+ job_start\)/);
  assert.equal(hint('false', 1, ''), undefined);
  assert.equal(hint('grep a b', 1, 'Permission denied', 'No matches found (not an error)'), undefined);
  assert.equal(hint('xyzzy', 127, `${'x'.repeat(4000)}\nbash: xyzzy: command not found`), undefined, 'only the first 4,000 characters are scanned');
});

test('masked-success warnings: a failure shape behind a pass-through pipe or an || fallback, never for a read-only head', () => {
  const hint = (command: string, output: string) => terminalHint(command, 0, output, undefined, 30);
  assert.match(hint('cargo build 2>&1 | tail -5', 'error[E0425]: cannot find value')!, /^exit_code 0 here is the status of the last pipeline command/);
  assert.match(hint('pytest || true', '== 2 failed, 3 passed ==')!, /^exit_code 0 here is the status of the `\|\|` fallback/);
  assert.match(hint('make | cat', 'make: *** [all] Error 1')!, /pipeline/);
  assert.equal(hint('grep Traceback log | tail -1', 'Traceback (most recent call last):'), undefined, 'read-only head');
  assert.equal(hint('cargo build | tail -5', 'Finished release'), undefined, 'no failure shape');
  assert.equal(hint('cargo build', 'error[E0425]'), undefined, 'nothing masks the status');
  assert.equal(hint('make || exit 1', 'make: *** [all] Error 1'), undefined);
});
