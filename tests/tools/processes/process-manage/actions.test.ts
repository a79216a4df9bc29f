import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProcessRegistry, TrackedProcess } from '../../../../supervisor/tools/processes/process-manage/registry.js';
import { killAnswer, listAnswer, logAnswer, pollAnswer, waitAnswer, type ProcessView } from '../../../../supervisor/tools/processes/process-manage/actions.js';

// process_manage's answers for each Hermes followed: the 0.19 view and the 0.22.2 one.

const STARTED = Date.parse('2026-01-01T00:00:00Z');
const clean = (text: string): unknown => `<${text}>`;
const OLD: ProcessView = { clean, maxWait: 60, listFields: false, waitFields: false, offsetHead: false };
const NEW: ProcessView = { clean, maxWait: 60, listFields: true, waitFields: true, offsetHead: true };

function proc(over: Partial<TrackedProcess> = {}): TrackedProcess {
  return {
    id: 'proc_abc123',
    ownerId: 'o',
    command: 'make build',
    cwd: '/repo',
    pid: 4242,
    startedAt: STARTED,
    output: '',
    exited: false,
    worker: undefined as unknown as TrackedProcess['worker'],
    waiters: [],
    persistOnRelease: false,
    screen: '',
    ...over,
  };
}

/** The two registry calls the answers make; `exits` says whether the wait sees the process exit. */
function registry(exits: boolean, onKill?: (p: TrackedProcess) => void): { registry: ProcessRegistry; waited: number[] } {
  const waited: number[] = [];
  const fake = {
    wait: (p: TrackedProcess, ms: number) => {
      waited.push(ms);
      if (exits) Object.assign(p, { exited: true, exitCode: 0, completionReason: 'exited', finishedAt: p.startedAt + 3000 });
      return Promise.resolve(exits);
    },
    kill: (p: TrackedProcess) => {
      onKill?.(p);
      return Promise.resolve();
    },
  };
  return { registry: fake as unknown as ProcessRegistry, waited };
}

test('list: the 0.19 fields; 0.22.2 adds persist_on_release, exited_at and completion_reason', () => {
  const running = proc({ command: 'x'.repeat(250), output: 'y'.repeat(300), jobId: 'job_1', persistOnRelease: true, terminal: { rows: 24, cols: 80 }, screen: '$ ' });
  const done = proc({ id: 'proc_def456', pid: undefined, exited: true, exitCode: 2, completionReason: 'exited', finishedAt: STARTED + 1500, output: 'bye' });
  const old = listAnswer([running, done], OLD).processes as Array<Record<string, unknown>>;
  assert.equal((old[0]!.command as string).length, 200);
  assert.equal(old[0]!.output_preview, `<${'y'.repeat(198)}$ >`);
  assert.equal(old[0]!.tty, true);
  assert.equal(old[0]!.job_id, 'job_1');
  assert.equal(old[0]!.status, 'running');
  assert.equal('persist_on_release' in old[0]!, false);
  assert.deepEqual(old[1], { session_id: 'proc_def456', command: 'make build', cwd: '/repo', pid: null, started_at: '2026-01-01T00:00:00.000Z', uptime_seconds: 2, status: 'exited', tty: false, output_preview: '<bye>', exit_code: 2 });
  const neu = listAnswer([running, done], NEW).processes as Array<Record<string, unknown>>;
  assert.equal(neu[0]!.persist_on_release, true);
  assert.equal(neu[1]!.exited_at, (STARTED + 1500) / 1000);
  assert.equal(neu[1]!.completion_reason, 'exited');
});

test('poll: the last 1000 characters; an ended process says how and who ended it', () => {
  assert.deepEqual(pollAnswer(proc({ output: 'a'.repeat(1200), finishedAt: STARTED + 10_400 }), OLD), {
    session_id: 'proc_abc123', command: 'make build', status: 'running', pid: 4242, tty: false, uptime_seconds: 10, output_preview: `<${'a'.repeat(1000)}>`,
  });
  const lost = pollAnswer(proc({ exited: true, completionReason: 'lost', finishedAt: STARTED }), OLD);
  assert.deepEqual([lost.exit_code, lost.completion_reason, lost.termination_source], [null, 'lost', 'backend_lost']);
  const killed = pollAnswer(proc({ exited: true, exitCode: -9, completionReason: 'killed', terminationSource: 'process.kill', finishedAt: STARTED }), OLD);
  assert.deepEqual([killed.exit_code, killed.completion_reason, killed.termination_source], [-9, 'killed', 'process.kill']);
  assert.equal(pollAnswer(proc({ exited: true, exitCode: 0, completionReason: 'exited', finishedAt: STARTED }), OLD).termination_source, '');
});

test('log: Python line splitting without ANSI; offset 0 is the tail before 0.22.2 and the head after', () => {
  const p = proc({ output: '\x1b[31mone\x1b[0m\r\ntwo\rthree\u2028four\n' });
  assert.deepEqual(logAnswer(p, undefined, 2, OLD), { session_id: 'proc_abc123', command: 'make build', status: 'running', output: '<three\nfour>', total_lines: 4, showing: '2 lines' });
  assert.equal(logAnswer(p, 0, 2, OLD).output, '<three\nfour>');
  assert.equal(logAnswer(p, 0, 2, NEW).output, '<one\ntwo>');
  assert.equal(logAnswer(p, 1, 2, OLD).output, '<two\nthree>');
  assert.deepEqual(logAnswer(p, 10, undefined, NEW), { session_id: 'proc_abc123', command: 'make build', status: 'running', output: '<>', total_lines: 4, showing: '0 lines' });
  const many = proc({ output: Array.from({ length: 250 }, (_, i) => `l${i}`).join('\n') });
  assert.equal(logAnswer(many, undefined, undefined, NEW).showing, '200 lines');
});

test('wait: an exit answers the ending and the completion tail; output_cut counts code points from 0.22.2', async () => {
  const emoji = '\u{1F600}';
  const p = proc({ output: `${'a'.repeat(5)}${emoji.repeat(2000)}` });
  const { registry: r, waited } = registry(true);
  const answer = await waitAnswer(r, p, 5, new AbortController().signal, NEW);
  assert.deepEqual(waited, [5000]);
  assert.equal(answer.status, 'exited');
  assert.equal(answer.exit_code, 0);
  assert.equal(answer.completion_reason, 'exited');
  assert.equal(answer.termination_source, '');
  assert.equal(answer.output, `<${emoji.repeat(2000)}>`);
  assert.equal(answer.output_cut, 5);
  assert.equal('output_cut' in (await waitAnswer(registry(true).registry, proc({ output: 'a'.repeat(2001) }), 5, new AbortController().signal, OLD)), false);
  assert.equal('output_cut' in (await waitAnswer(registry(true).registry, proc({ output: 'a'.repeat(2000) }), 5, new AbortController().signal, NEW)), false);
});

test('wait: a timeout, plain before 0.22.2 and with process_running after; an over-long request is clamped', async () => {
  const signal = new AbortController().signal;
  const old = await waitAnswer(registry(false).registry, proc({ output: 'tick' }), 3, signal, OLD);
  assert.deepEqual(old, { status: 'timeout', command: 'make build', output: '<tick>', timeout_note: 'Waited 3s, process still running' });
  const { registry: r, waited } = registry(false);
  const clampedOld = await waitAnswer(r, proc(), 600, signal, OLD);
  assert.deepEqual(waited, [60_000]);
  assert.equal(clampedOld.timeout_note, 'Requested wait of 600s was clamped to configured limit of 60s');
  const neu = await waitAnswer(registry(false).registry, proc({ finishedAt: STARTED + 7000 }), undefined, signal, NEW);
  assert.equal(neu.process_running, true);
  assert.match(neu.timeout_note as string, /^Wait window of 60s elapsed — the process is still running\. This is not an error\. Uptime: 7s\./);
  const clampedNew = await waitAnswer(registry(false).registry, proc(), 61, signal, NEW);
  assert.match(clampedNew.timeout_note as string, /^Requested wait of 61s was clamped to configured limit of 60s\. Wait window of 60s elapsed/);
});

test('kill: a running process is killed by process.kill; an ended one is already_exited', async () => {
  const killed: string[] = [];
  const p = proc({ output: 'partial' });
  const answer = await killAnswer(registry(false, (q) => killed.push(q.id)).registry, p, NEW);
  assert.deepEqual(killed, ['proc_abc123']);
  assert.equal(p.terminationSource, 'process.kill');
  assert.deepEqual(answer, { status: 'killed', session_id: 'proc_abc123', completion_reason: 'killed', termination_source: 'process.kill', output: '<partial>' });
  const ended = proc({ exited: true, exitCode: 1, completionReason: 'exited', output: 'done' });
  assert.deepEqual(await killAnswer(registry(false, () => assert.fail('must not kill')).registry, ended, NEW), { status: 'already_exited', command: 'make build', exit_code: 1, completion_reason: 'exited', termination_source: '', output: '<done>' });
});
