import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { defaultLimits } from '../../shared/limits.js';
import { assertLoopback, serveGateway } from '../../supervisor/http/server.js';

// The listener alone: loopback only, a drain that waits for open POST answers, and a close that
// stops what it serves before the listener goes.

const limits = defaultLimits();

test('only loopback hosts are served', async () => {
  assert.doesNotThrow(() => assertLoopback('127.0.0.1'));
  assert.doesNotThrow(() => assertLoopback('::1'));
  assert.throws(() => assertLoopback('0.0.0.0'), /refusing to bind non-loopback host 0.0.0.0/);
  const app = new Hono();
  await assert.rejects(serveGateway({ host: '0.0.0.0', port: 0, limits }, { app, lifecycle: { draining: false }, openElsewhere: () => 0, inflightNativeCalls: () => 0, stop: async () => {} }), /non-loopback/);
});

test('drain waits for an open POST answer (and what is open elsewhere), then close stops what is served', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const app = new Hono();
  app.post('/slow', async (c) => {
    await held;
    return c.text('done');
  });
  app.get('/fast', (c) => c.text('fast'));
  const lifecycle = { draining: false };
  let elsewhere = 1;
  const events: string[] = [];
  const listener = await serveGateway({ host: '127.0.0.1', port: 0, limits }, { app, lifecycle, openElsewhere: () => elsewhere, inflightNativeCalls: () => 0, stop: async () => void events.push('stopped') });
  assert.match(listener.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(await (await fetch(`${listener.url}/fast`)).text(), 'fast');
  const slow = fetch(`${listener.url}/slow`, { method: 'POST' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const timedOut = await listener.drain(100);
  assert.equal(lifecycle.draining, true);
  assert.deepEqual(timedOut, { drained: false, open_requests: 2, inflight_native_calls: 0 });
  release();
  const answer = await slow;
  assert.equal(answer.headers.get('connection'), 'close', 'an answer sent while draining closes its connection');
  assert.equal(await answer.text(), 'done');
  elsewhere = 0;
  assert.deepEqual(await listener.drain(2000), { drained: true, open_requests: 0, inflight_native_calls: 0 });
  await listener.close();
  await listener.close();
  assert.deepEqual(events, ['stopped'], 'stop runs once');
  await assert.rejects(fetch(`${listener.url}/fast`));
});
