import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { TrackedProcess } from '../../../../supervisor/tools/processes/process-manage/index.js';
import { LocalJob } from '../../../../supervisor/tools/jobs/runner/local-job.js';
import { tempDirs } from '../../../helpers/temp.js';

// A job's output on its way into the receipt: redacted as its command's output before the cut (so
// a secret is masked whole even where the tail starts), ANSI-free, counted in bytes, flagged when
// only the end is kept; and how the job's end becomes its completion.

const temp = tempDirs();
after(() => temp.removeAll());

const TOKEN = 'glpat-' + 'a1B2c3D4e5F6g7H8i9J0';
const proc = (fields: Partial<TrackedProcess>): TrackedProcess => fields as TrackedProcess;

test("a secret the command prints is masked in the stored tail, whole even when the tail's cut falls inside it", () => {
  const job = new LocalJob('job_x', Infinity, '/nonexistent', 20, 'make push');
  job.onOutput(`pushed with ${TOKEN}\n`);
  const out = job.receiptOutput();
  assert.equal(out.tail.includes(TOKEN.slice(-8)), false, out.tail);
  assert.match(out.tail, /glpat-\.\.\.|\*\*\*/);
  assert.ok(out.tail.length <= 20);
  assert.equal(out.truncated, true, 'the tail is only the end of the text');
  assert.equal(out.bytes, Buffer.byteLength(`pushed with ${TOKEN}\n`));
});

test('an environment dump gets the assignment passes; a plain command keeps code-like assignments', () => {
  const env = new LocalJob('job_e', Infinity, '/nonexistent', 1000, 'env');
  env.onOutput('SERVICE_TOKEN=verysecretvalue123\n');
  assert.equal(env.receiptOutput().tail, 'SERVICE_TOKEN=***\n');
  const plain = new LocalJob('job_p', Infinity, '/nonexistent', 1000, 'cat notes.txt');
  plain.onOutput('SERVICE_TOKEN=verysecretvalue123\n');
  assert.equal(plain.receiptOutput().tail, 'SERVICE_TOKEN=verysecretvalue123\n');
});

test('colours are stripped from the tail and kept in its styled twin; a PTY screen follows the lines and is counted', () => {
  const job = new LocalJob('job_c', Infinity, '/nonexistent', 1000, 'build');
  job.onOutput('\u001b[31mred\u001b[0m line\n');
  job.onScreen('prompt> ');
  const out = job.receiptOutput();
  assert.equal(out.tail, 'red line\nprompt> ');
  assert.ok(out.styled?.includes('\u001b[31m'), String(out.styled));
  assert.equal(out.bytes, Buffer.byteLength('\u001b[31mred\u001b[0m line\n') + Buffer.byteLength('prompt> '));
  assert.equal(out.truncated, false);
  job.onScreen('prompt> y');
  assert.equal(job.receiptOutput().tail, 'red line\nprompt> y', 'the screen is replaced, not appended');
});

test('takeDirty says whether output arrived since it was last asked', () => {
  const job = new LocalJob('job_d', Infinity, '/nonexistent', 100);
  assert.equal(job.takeDirty(), false);
  job.onOutput('x');
  assert.equal(job.takeDirty(), true);
  assert.equal(job.takeDirty(), false);
  job.onScreen('s');
  assert.equal(job.takeDirty(), true);
});

test('a stopped job ends timed_out or cancelled, with SIGKILL when it had to be killed', () => {
  const job = new LocalJob('job_s', Infinity, '/nonexistent', 100);
  job.stopping = { reason: 'timed_out', killAt: 0, killed: true };
  assert.deepEqual(
    { ...job.completion(proc({ exitCode: null, exitSignal: null })), output: undefined },
    { state: 'timed_out', exitCode: null, signal: 'SIGKILL', reason: 'max_runtime_exceeded', output: undefined },
  );
  job.stopping = { reason: 'gateway_shutdown', killAt: 0 };
  const shutdown = job.completion(proc({ exitCode: null, exitSignal: 'SIGTERM' }));
  assert.deepEqual([shutdown.state, shutdown.signal, shutdown.reason], ['cancelled', 'SIGTERM', 'gateway_shutdown']);
  job.stopping = { reason: 'cancelled', killAt: 0 };
  assert.equal(job.completion(proc({ exitCode: 143 })).reason, 'cancelled_by_request');
});

test('an exited job succeeds on 0, fails otherwise; a process_manage kill is a cancel; a lost one reads its exit record', () => {
  const job = new LocalJob('job_z', Infinity, join(temp.make('hmcp-local-job-'), 'job_z.json'), 100);
  assert.equal(job.completion(proc({ completionReason: 'exited', exitCode: 0 })).state, 'succeeded');
  const failed = job.completion(proc({ completionReason: 'exited', exitCode: null, exitSignal: 'SIGSEGV' }));
  assert.deepEqual([failed.state, failed.reason], ['failed', 'signal SIGSEGV']);
  assert.deepEqual([job.completion(proc({ completionReason: 'killed' })).reason], ['killed_via_process_manage']);
  const lost = job.completion(proc({ completionReason: 'lost' }));
  assert.deepEqual([lost.state, lost.reason], ['unknown', 'worker_lost_completion_unproven']);
  writeFileSync(job.exitFile, JSON.stringify({ exitCode: 3, signal: null, killed: false }));
  const recorded = job.completion(proc({ completionReason: 'lost' }));
  assert.deepEqual([recorded.state, recorded.exitCode, recorded.reason], ['failed', 3, 'exited']);
});
