import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ExecResult } from '../../../../shared/worker-protocol/exec.js';
import { CommandOutput } from '../../../../supervisor/core/result.js';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import { foregroundBackgroundGuidance, foregroundOutcome } from '../../../../supervisor/tools/processes/terminal/foreground.js';

// What a foreground command gets: Hermes' refusal of one that backgrounds work itself, or the
// result terminal_tool builds for the Hermes followed (output pipeline, exit code meaning, cwd, hint).

const newest = new HermesRelease('0.22.2');
const oldest = new HermesRelease('0.19.0');
const run = (r: Partial<ExecResult>): ExecResult => ({ exitCode: 0, timedOut: false, output: '', outputBytes: 0, ...r });
const outcome = (r: Partial<ExecResult>, command = 'true', release = newest, maxChars = 1000, startedIn?: string) => {
  const o = foregroundOutcome(run(r), command, 30, maxChars, { release, maxTimeoutSeconds: 30, hermesHome: '/h/.hermes', ...(startedIn ? { startedIn } : {}) });
  assert.ok(o.structured, 'a structured result');
  return { structured: o.structured, styled: o.styled };
};
const text = (o: ReturnType<typeof outcome>) => (o.structured.output as CommandOutput).text;

test('the output: ANSI stripped, Python-stripped, marked as the command’s (with where it ran) for the pipeline’s redaction', () => {
  const o = outcome({ output: '\x1b[31mred\x1b[0m\n\x85 ' }, 'echo red', newest, 1000, '/w');
  const out = o.structured.output as CommandOutput;
  assert.ok(out instanceof CommandOutput);
  assert.equal(out.text, 'red');
  assert.equal(out.command, 'echo red');
  assert.deepEqual(out.place, { hermesHome: '/h/.hermes', cwd: '/w' });
  assert.deepEqual(Object.keys(o.structured), ['output', 'exit_code', 'error']);
  assert.ok(o.styled, 'coloured output has a styled twin');
  assert.equal(outcome({ output: 'plain' }).styled, undefined);
});

test('a timeout: exit code 124 and the timeout line, alone when nothing was printed', () => {
  const o = outcome({ timedOut: true, exitCode: 137, output: '' }, 'sleep 99');
  assert.equal(o.structured.exit_code, 124);
  assert.equal(text(o), '[Command timed out after 30s]');
  assert.equal(text(outcome({ timedOut: true, output: 'partial' })), 'partial\n[Command timed out after 30s]');
});

test('long output: a 40% head / 60% tail window whose notice counts inside the budget', () => {
  const long = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n');
  const shown = text(outcome({ output: long }, 'seq', newest, 300));
  assert.ok(shown.length <= 300, String(shown.length));
  assert.match(shown, /^line 0\n/);
  assert.match(shown, /\.\.\. \[OUTPUT TRUNCATED - [\d,]+ chars omitted out of [\d,]+ total\] \.\.\./);
  assert.match(shown, /line 499$/);
  // Code points, not UTF-16 units, are counted.
  assert.equal(text(outcome({ output: '😀'.repeat(10) }, 'x', newest, 10)), '😀'.repeat(10));
});

test('exit code meanings: the last command of a chain decides; signal notes since 0.22.2 only', () => {
  assert.equal(outcome({ exitCode: 1 }, 'grep x y').structured.exit_code_meaning, 'No matches found (not an error)');
  assert.equal(outcome({ exitCode: 1 }, 'cat f | FOO=1 /usr/bin/diff a b').structured.exit_code_meaning, 'Files differ (expected, not an error)');
  assert.equal(outcome({ exitCode: 1 }, 'grep x y && false').structured.exit_code_meaning, undefined);
  assert.equal(outcome({ exitCode: 2 }, 'grep x y').structured.exit_code_meaning, undefined);
  assert.match(outcome({ exitCode: 137 }, 'grep x y').structured.exit_code_meaning as string, /^Exit code 137 usually means/);
  assert.equal(outcome({ exitCode: 137 }, 'grep x y', oldest).structured.exit_code_meaning, undefined, 'before 0.22.2 there are no signal notes');
  assert.equal(outcome({ exitCode: 1 }, 'grep x y', oldest).structured.exit_code_meaning, 'No matches found (not an error)');
});

test('cwd: reported where the command ended elsewhere than it started, for the Hermes that has the field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hmcp-foreground-'));
  try {
    const sub = join(dir, 'sub');
    assert.equal(outcome({ cwd: sub }, 'cd sub', newest, 1000, dir).structured.cwd, sub);
    assert.equal(outcome({ cwd: dir }, 'true', newest, 1000, dir).structured.cwd, undefined, 'where it started');
    assert.equal(outcome({ cwd: sub, timedOut: true }, 'cd sub; sleep 9', newest, 1000, dir).structured.cwd, undefined, 'cut off by its deadline');
    assert.equal(outcome({ cwd: sub }, 'cd sub', oldest, 1000, dir).structured.cwd, undefined, '0.19 has no cwd field');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('failure hints for the Hermes that has them', () => {
  const failed = { exitCode: 127, output: 'bash: line 1: xyzzy: command not found' };
  assert.match(outcome(failed, 'xyzzy').structured.hint as string, /^`xyzzy` is not installed/);
  assert.equal(outcome(failed, 'xyzzy', oldest).structured.hint, undefined);
});

test('background guidance: nohup/setsid, & and long-lived servers point to a job; quoted text and --help never do', () => {
  assert.match(foregroundBackgroundGuidance('nohup ./server', newest)!, /shell-level background wrappers/);
  assert.match(foregroundBackgroundGuidance('make; setsid x', newest)!, /shell-level background wrappers/);
  assert.match(foregroundBackgroundGuidance('sleep 9 & echo started', newest)!, /'&' backgrounding/);
  assert.match(foregroundBackgroundGuidance('./serve &', newest)!, /'&' backgrounding/);
  assert.match(foregroundBackgroundGuidance('npm run dev', newest)!, /long-lived server/);
  assert.match(foregroundBackgroundGuidance('python3 -m http.server 8000', newest)!, /long-lived server/);
  assert.equal(foregroundBackgroundGuidance('echo "a & b" && true', newest), undefined);
  assert.equal(foregroundBackgroundGuidance("echo 'npm run dev'", newest), undefined);
  assert.equal(foregroundBackgroundGuidance('vite --help', newest), undefined);
  assert.equal(foregroundBackgroundGuidance('make && make test', newest), undefined);
});

test('an inert heredoc body is read as data since 0.22.2, as shell text before', () => {
  const py = "python3 - <<'EOF'\nx = 1 & 3\nprint(x)\nEOF";
  assert.equal(foregroundBackgroundGuidance(py, newest), undefined, '0.22.2 runs it');
  assert.match(foregroundBackgroundGuidance(py, oldest)!, /'&' backgrounding/, '0.19 refuses it');
  assert.match(foregroundBackgroundGuidance("bash <<'EOF'\nsleep 1 &\nEOF", newest)!, /'&' backgrounding/);
});
