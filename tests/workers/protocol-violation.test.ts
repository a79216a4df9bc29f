import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { terminalProtocol, type TerminalProtocol } from '../../shared/worker-protocol/terminal.js';
import { detectIsolation, type IsolationMode } from '../../supervisor/platform/spawning/isolation.js';
import { WorkerProcess } from '../../supervisor/platform/spawning/worker-process.js';
import { processesTagged, processStartTime } from '../../shared/proc.js';
import { ESCAPEE_COUNT, escapeeCommand, killSurvivors, newMarker, waitForNoSurvivors, waitForSurvivors } from '../helpers/escapees.js';
import { within } from '../helpers/wait.js';

// A bad frame on the fd-3 pipe, in either direction, ends that one worker and nothing else. Bad is
// oversized, not JSON, not a typed object, or a well-formed message of a type the worker's kind
// does not speak (here: the terminal protocol):
// - supervisor -> worker: the worker's decoder fails, it closes its channel, kills what it started
//   and exits; the supervisor sees an unexpected exit (onFailure) and carries on.
// - worker -> supervisor: WorkerProcess's decoder fails, it SIGKILLs the worker's whole tree and
//   reports 'protocol violation: ...' through onFailure; the supervisor process is unharmed.

const terminalEntry = join(packageRoot(), 'dist', 'workers', 'terminal-worker.js');
const badEntry = join(packageRoot(), 'dist', 'tests', 'fixtures', 'bad-frame-worker.js');
const dirs: string[] = [];
const markers: string[] = [];
const workers: WorkerProcess<TerminalProtocol>[] = [];
after(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  for (const m of markers) killSurvivors(m);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function rawFrame(body: string, announced?: number): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(announced ?? bytes.length, 0);
  return Buffer.concat([head, bytes]);
}

/**
 * The supervisor's end of the worker's fd-3 pipe. WorkerProcess keeps it private (send() only ever
 * writes well-formed, capped frames); the test reaches the stream at runtime to write what send()
 * never would, without widening WorkerProcess's API for it.
 */
function supervisorEnd(worker: WorkerProcess<TerminalProtocol>): Writable {
  const channel = (worker as unknown as { channel?: Writable }).channel;
  assert.ok(channel && typeof channel.write === 'function', 'WorkerProcess keeps its fd-3 stream in `channel`');
  return channel;
}

/** Live processes carrying a worker's environment tag (the worker itself and all it started). */
function tagged(tag: string): number[] {
  return processesTagged(tag).filter((pid) => processStartTime(pid) !== undefined); // alive, not a zombie
}

/**
 * Waits until nothing carries the tag. In pid-namespace mode WorkerProcess.kill()/exited resolve when
 * the `unshare` process is gone; the namespace's own processes finish dying (address-space teardown,
 * the kernel's namespace zap) a few milliseconds later.
 */
async function waitForNoTagged(tag: string, ms = 3000): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const left = tagged(tag);
    if (left.length === 0 || Date.now() > end) return left;
    await new Promise((r) => setTimeout(r, 10));
  }
}

function isolationFor(mode: IsolationMode) {
  const isolation = detectIsolation(mode);
  assert.equal(isolation.mode, mode, `host does not allow ${mode}: ${isolation.reason}`);
  return isolation;
}

/** A worker plus a promise of its onFailure reasons (resolved with the first). */
function spawnWorker(entry: string, mode: IsolationMode, extra: { env?: Record<string, string>; maxFrameBytes?: number } = {}) {
  const failures: string[] = [];
  let firstFailure!: (reason: string) => void;
  const failed = new Promise<string>((resolve) => (firstFailure = resolve));
  const worker = new WorkerProcess({
    protocol: terminalProtocol,
    entry,
    isolation: isolationFor(mode),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), ...extra.env },
    cwd: '/',
    ...(extra.maxFrameBytes ? { maxFrameBytes: extra.maxFrameBytes } : {}),
    onFailure: (reason) => {
      failures.push(reason);
      firstFailure(reason);
    },
  });
  workers.push(worker);
  return { worker, failures, failed };
}

for (const mode of ['pid-namespace', 'subreaper'] as const) {
  describe(`garbage from the supervisor side (${mode})`, () => {
    test('a header announcing ~4 GiB: the worker closes, kills its running command tree and exits', async () => {
      const { worker, failures, failed } = spawnWorker(terminalEntry, mode);
      await within(worker.waitFor((f) => f.type === 'ready'), 10_000, 'ready');
      const marker = newMarker();
      markers.push(marker);
      const dir = mkdtempSync(join(tmpdir(), 'hmcp-pv-'));
      dirs.push(dir);
      const pending = worker.request({ type: 'exec', command: escapeeCommand(marker), cwd: '/', timeoutMs: 60_000, stateDir: dir, maxOutputBytes: 4096 });
      pending.catch(() => {}); // never answered: the worker goes away first
      assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'escapees started');

      supervisorEnd(worker).write(rawFrame('{"type":"exec","id":"2"', 0xfffffff0));

      const exit = await within(worker.exited, 10_000, 'the worker to exit');
      assert.deepEqual(exit, { code: 0, signal: null }, 'a clean exit of its own, not a kill');
      assert.match(worker.stderr, /worker: incoming frame announces 4294967280 bytes, over the \d+-byte cap; closing/);
      await assert.rejects(pending, /worker exited/);
      assert.match(await within(failed, 5000, 'onFailure'), /worker exited unexpectedly \(code 0\)/);
      assert.deepEqual(await waitForNoSurvivors(marker), [], 'nothing the command started survives');
      assert.deepEqual(await waitForNoTagged(worker.tag), []);
      assert.equal(failures.length, 1);
      worker.send({ type: 'shutdown' }); // a dead worker: a no-op, not a throw
      await assert.rejects(worker.request({ type: 'exec', command: 'true', cwd: '/', timeoutMs: 1000, stateDir: dir, maxOutputBytes: 4096 }), /worker exited/, 'a request to a dead worker fails at once');
    });

    test('a correctly sized frame that is not JSON: the worker exits', async () => {
      const { worker, failed } = spawnWorker(terminalEntry, mode);
      await within(worker.waitFor((f) => f.type === 'ready'), 10_000, 'ready');
      supervisorEnd(worker).write(rawFrame('this is not json'));
      await within(worker.exited, 10_000, 'the worker to exit');
      assert.match(worker.stderr, /worker: incoming frame is not valid JSON; closing/);
      assert.match(await within(failed, 5000, 'onFailure'), /exited unexpectedly/);
      assert.deepEqual(await waitForNoTagged(worker.tag), []);
    });

    test('a well-formed message of a type the terminal worker is never sent: the worker exits', async () => {
      const { worker, failed } = spawnWorker(terminalEntry, mode);
      await within(worker.waitFor((f) => f.type === 'ready'), 10_000, 'ready');
      supervisorEnd(worker).write(rawFrame(JSON.stringify({ type: 'start', command: 'true', cwd: '/' })));
      await within(worker.exited, 10_000, 'the worker to exit');
      assert.match(worker.stderr, /worker: incoming frame has unknown type "start"; closing/);
      assert.match(await within(failed, 5000, 'onFailure'), /exited unexpectedly/);
      assert.deepEqual(await waitForNoTagged(worker.tag), []);
    });
  });
}

describe('garbage from the worker side', () => {
  const cases = [
    { kind: 'oversized', reason: /^protocol violation: incoming frame announces \d+ bytes, over the 1024-byte cap$/ },
    { kind: 'huge-header', reason: /^protocol violation: incoming frame announces 4294967295 bytes, over the 1024-byte cap$/ },
    { kind: 'malformed', reason: /^protocol violation: incoming frame is not valid JSON$/ },
    { kind: 'array', reason: /^protocol violation: incoming frame is not a typed JSON object$/ },
    { kind: 'unknown-type', reason: /^protocol violation: incoming frame has unknown type "exit"$/ },
  ];
  for (const mode of ['pid-namespace', 'subreaper'] as const) {
    for (const { kind, reason } of mode === 'pid-namespace' ? cases : cases.slice(0, 1)) {
      test(`${kind} frame (${mode}): WorkerProcess kills the worker and reports a protocol violation`, async () => {
        const { worker, failures, failed } = spawnWorker(badEntry, mode, { env: { BAD_FRAME_KIND: kind, BAD_FRAME_BYTES: '4096' }, maxFrameBytes: 1024 });
        const frames: string[] = [];
        worker.onFrame((f) => frames.push(f.type));
        const why = await within(failed, 10_000, 'onFailure');
        assert.match(why, reason);
        assert.deepEqual(frames, ['ready'], 'frames before the violation were delivered, none after');
        assert.equal(worker.alive, false, 'onFailure runs once the worker is gone');
        // Killed by the supervisor (the fixture never exits on its own). In pid-namespace mode the
        // teardown kills the namespace's processes first, so `unshare` may report its child's death
        // (code 1) before its own SIGKILL lands; either way it did not exit on its own with 0.
        const exit = worker.describeExit();
        assert.ok(exit === 'signal SIGKILL' || (mode === 'pid-namespace' && exit === 'code 1'), `killed by the supervisor (${exit})`);
        assert.deepEqual(await waitForNoTagged(worker.tag), [], 'nothing of the worker survives');
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(failures.length, 1, 'reported once, not again as an unexpected exit');
        worker.send({ type: 'shutdown' }); // no throw on a dead worker
        await worker.kill(); // idempotent
      });
    }
  }

  test('the supervisor carries on: a fresh worker after the violations still runs commands', async () => {
    const { worker, failures } = spawnWorker(terminalEntry, 'pid-namespace');
    await within(worker.waitFor((f) => f.type === 'ready'), 10_000, 'ready');
    const dir = mkdtempSync(join(tmpdir(), 'hmcp-pv-'));
    dirs.push(dir);
    const result = worker.request({ type: 'exec', command: 'echo still-fine', cwd: '/', timeoutMs: 10_000, stateDir: dir, maxOutputBytes: 4096 });
    const r = await within(result, 10_000, 'result');
    assert.ok(!('error' in r), JSON.stringify(r));
    assert.equal(r.exitCode, 0);
    assert.match(String(r.output), /still-fine/);
    await worker.kill();
    assert.deepEqual(failures, []);
  });
});
