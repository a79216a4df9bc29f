import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { defaultLimits } from '../../../../shared/limits.js';
import type { ProcessProtocol } from '../../../../shared/worker-protocol/process.js';
import type { WorkerProcess } from '../../../../supervisor/platform/spawning/worker-process.js';
import { inputProperties, sendInput, terminalSizeProperties, visibleOutput } from '../../../../supervisor/tools/processes/process-manage/pty-input.js';
import type { TrackedProcess } from '../../../../supervisor/tools/processes/process-manage/registry.js';

// The input actions process_manage and job_input share, on a process record whose worker records
// what it is sent (the worker side is covered by the jobs and process_manage gateway tests).

function tracked(extra: Partial<TrackedProcess> = {}): { p: TrackedProcess; sent: unknown[] } {
  const sent: unknown[] = [];
  const worker = { send: (message: unknown) => sent.push(message) } as unknown as WorkerProcess<ProcessProtocol>;
  const p: TrackedProcess = { id: 'proc_1', ownerId: 'o', command: 'cat', cwd: '/', startedAt: 0, output: '', exited: false, worker, waiters: [], persistOnRelease: false, screen: '', ...extra };
  return { p, sent };
}
const code = (c: ErrorCode) => (e: unknown) => e instanceof GatewayError && e.code === c;

test('write and submit: the data as given, submit adding Enter (\\r on a terminal, \\n on pipes), bytes counted', () => {
  const { p, sent } = tracked();
  assert.deepEqual(sendInput(p, 'write', { data: 'é' }), { status: 'ok', bytes_written: 2 });
  assert.deepEqual(sendInput(p, 'submit', { data: 'y' }), { status: 'ok', bytes_written: 2 });
  assert.deepEqual(sent, [{ type: 'stdin', data: 'é' }, { type: 'stdin', data: 'y\n' }]);
  const tty = tracked({ terminal: { cols: 80, rows: 24 } });
  sendInput(tty.p, 'submit', {});
  assert.deepEqual(tty.sent, [{ type: 'stdin', data: '\r' }]);
});

test('close: EOF on a terminal, stdin closed on pipes; nothing is sent to a process that has ended', () => {
  const { p, sent } = tracked();
  assert.deepEqual(sendInput(p, 'close', {}), { status: 'ok', message: 'stdin closed' });
  assert.deepEqual(sendInput(tracked({ terminal: { cols: 80, rows: 24 } }).p, 'close', {}), { status: 'ok', message: 'EOF sent' });
  assert.deepEqual(sent, [{ type: 'close-stdin' }]);
  const ended = tracked({ exited: true });
  for (const action of ['write', 'submit', 'close'] as const) assert.throws(() => sendInput(ended.p, action, { data: 'x' }), code(ErrorCode.PROCESS_NOT_RUNNING));
  assert.deepEqual(ended.sent, []);
});

test('resize: a running terminal only, one side kept, the new size recorded and reported', () => {
  const sizes: unknown[] = [];
  const { p, sent } = tracked({ terminal: { cols: 80, rows: 24 }, onResize: (s) => sizes.push(s) });
  assert.deepEqual(sendInput(p, 'resize', { cols: 100 }), { status: 'ok', session_id: 'proc_1', cols: 100, rows: 24 });
  assert.deepEqual(p.terminal, { cols: 100, rows: 24 });
  assert.deepEqual(sent, [{ type: 'resize', cols: 100, rows: 24 }]);
  assert.deepEqual(sizes, [{ cols: 100, rows: 24 }]);
  assert.throws(() => sendInput(p, 'resize', {}), code(ErrorCode.INVALID_ARGUMENTS));
  assert.throws(() => sendInput(tracked().p, 'resize', { cols: 10 }), code(ErrorCode.PROCESS_NOT_A_TTY));
  assert.throws(() => sendInput(tracked({ terminal: { cols: 80, rows: 24 }, exited: true }).p, 'resize', { cols: 10 }), code(ErrorCode.PROCESS_NOT_RUNNING));
});

test('what a reader sees: finished lines, then the screen of a terminal', () => {
  assert.equal(visibleOutput(tracked({ output: 'a\n', screen: 'b' }).p), 'a\n', 'pipes have no screen');
  assert.equal(visibleOutput(tracked({ output: 'a\n', screen: 'b', terminal: { cols: 80, rows: 24 } }).p), 'a\nb');
});

test('the schema properties follow the configured limits', () => {
  const limits = { ...defaultLimits(), ptyMaxCols: 300, ptyMaxRows: 100 };
  const size = terminalSizeProperties(limits);
  assert.equal(size.cols.maximum, 300);
  assert.equal(size.rows.maximum, 100);
  assert.equal(size.cols.minimum, 2);
  assert.deepEqual(Object.keys(inputProperties(limits)), ['data', 'cols', 'rows']);
});
