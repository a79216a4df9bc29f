import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { ResidentWorker } from '../../../supervisor/platform/spawning/resident-worker.js';
import type { WorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { loadConfig } from '../../../supervisor/platform/config.js';

// A resident worker's request bound: a call left unanswered means the worker is wedged and it is
// killed (and replaced next time); a readiness probe left unanswered while calls are in flight only
// reports it, since killing the worker would end every upstream session and call in flight. The
// worker here is a stand-in that comes up and then never answers, so only the bound decides.

/** A worker that says it is ready and never answers a request; records kills. */
function silentWorker() {
  const state = { kills: 0, alive: true };
  const worker = {
    pid: 4242,
    get alive() {
      return state.alive;
    },
    waitFor: async () => ({ type: 'ready' }),
    send: () => {},
    request: () => new Promise<never>(() => {}),
    kill: async () => {
      state.kills++;
      state.alive = false;
    },
  };
  return { worker, state };
}

function residentWith(worker: ReturnType<typeof silentWorker>['worker']) {
  const runtime = { config: loadConfig({ HOME: '/nonexistent-home' }), spawnWorker: () => worker } as unknown as WorkerRuntime;
  const configure = { type: 'configure', command: ['x'], tool: 't', maxSessions: 1, callTimeoutMs: 1000, openTimeoutMs: 1000 } as const;
  return new ResidentWorker(runtime, 'graph-worker', configure as never, {}, pino({ level: 'silent' }), { name: 'graph', what: 'graph worker', failedCode: 'GRAPH_UPSTREAM_FAILED', timeoutCode: 'GRAPH_TIMEOUT' });
}

test('a probe past its bound while a call is in flight reports a timeout and leaves the worker running', async () => {
  const { worker, state } = silentWorker();
  const resident = residentWith(worker);
  const call = resident.request({ type: 'call', cwd: '/', arguments: {} }, 500);
  const reply = await resident.request({ type: 'probe', cwd: '/', timeoutMs: 10 }, 50, 'spare-busy');
  const failure = 'failure' in reply ? reply.failure : undefined;
  assert.equal(failure?.code, 'GRAPH_TIMEOUT');
  assert.doesNotMatch(failure.message, /restarted/);
  assert.equal(state.kills, 0);
  await resident.close();
  await call;
});

test('a probe past its bound with nothing else in flight: the worker is wedged, killed and replaced next time', async () => {
  const { worker, state } = silentWorker();
  const resident = residentWith(worker);
  const reply = await resident.request({ type: 'probe', cwd: '/', timeoutMs: 10 }, 50, 'spare-busy');
  const failure = 'failure' in reply ? reply.failure : undefined;
  assert.match(failure?.message ?? '', /restarted/);
  assert.equal(state.kills, 1);
});

test('a call past its bound means a wedged worker: it is killed and the answer says it was restarted', async () => {
  const { worker, state } = silentWorker();
  const resident = residentWith(worker);
  const reply = await resident.request({ type: 'call', cwd: '/', arguments: {} }, 50);
  const failure = 'failure' in reply ? reply.failure : undefined;
  assert.equal(failure?.code, 'GRAPH_TIMEOUT');
  assert.match(failure.message, /restarted/);
  assert.equal(state.kills, 1);
});
