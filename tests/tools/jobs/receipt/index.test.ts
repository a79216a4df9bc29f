import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jobOutcome } from '../../../../supervisor/tools/jobs/receipt/index.js';
import type { JobRow } from '../../../../supervisor/tools/jobs/store/index.js';

const ROW: JobRow = {
  id: 'job_0123456789abcdef01234567',
  token_hash: 'f'.repeat(64),
  request_hash: 'e'.repeat(64),
  idempotency_key: 'key-0123456789abcdef',
  prepared_by: 'owner-1',
  session_id: 'session-1',
  command: 'make secret-target',
  workdir: '/w/project',
  max_runtime: 600,
  profile: 'light',
  heavy: 0,
  memory_reservation: 0,
  state: 'running',
  created_at: 0,
  expires_at: 60_000,
  started_at: 1000,
  deadline_at: 601_000,
  finished_at: null,
  exit_code: null,
  signal: null,
  termination_reason: null,
  output_tail: 'building\n',
  output_styled: null,
  output_truncated: 0,
  output_bytes: 9,
  instance_id: 'i',
  instance_pid: 1,
  instance_start: 's',
  worker_pid: 2,
  worker_start: 't',
  unit: 'hermes-job-x',
  cancel_requested: 0,
  updated_at: 1000,
  pty: 0,
  pty_cols: null,
  pty_rows: null,
};

test('the receipt never carries the command, the token hash, the request hash or who prepared it', () => {
  const text = JSON.stringify(jobOutcome(ROW));
  for (const secret of [ROW.command!, ROW.token_hash, ROW.request_hash, ROW.prepared_by, ROW.idempotency_key!]) assert.equal(text.includes(secret), false, secret);
});

test('times are ISO strings; expires_at only while prepared; the terminal only for a PTY job', () => {
  const running = jobOutcome(ROW).structured!;
  assert.equal(running.started_at, '1970-01-01T00:00:01.000Z');
  assert.equal(running.finished_at, null);
  assert.equal('expires_at' in running, false);
  assert.equal('terminal' in running, false);
  assert.equal(running.tty, false);
  const prepared = jobOutcome({ ...ROW, state: 'prepared' }).structured!;
  assert.equal(prepared.expires_at, '1970-01-01T00:01:00.000Z');
  const pty = jobOutcome({ ...ROW, pty: 1, pty_cols: 100, pty_rows: 30 }).structured!;
  assert.deepEqual([pty.tty, pty.terminal], [true, { cols: 100, rows: 30 }]);
});

test('output_truncated is the stored flag; on rows without it, whether the byte count passes the tail', () => {
  assert.equal(jobOutcome({ ...ROW, output_truncated: 1 }).structured!.output_truncated, true);
  assert.equal(jobOutcome({ ...ROW, output_truncated: null, output_bytes: 9 }).structured!.output_truncated, false);
  assert.equal(jobOutcome({ ...ROW, output_truncated: null, output_bytes: 900 }).structured!.output_truncated, true);
});

test('the styled twin of the tail is offered to the result view only when the output had colours', () => {
  assert.equal(jobOutcome(ROW).styled, undefined);
  assert.deepEqual(jobOutcome({ ...ROW, output_styled: '\u001b[32mbuilding\u001b[0m\n' }).styled, { output_tail: '\u001b[32mbuilding\u001b[0m\n' });
});
