import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineProtocol, type ReadyMessage } from '../../../shared/worker-protocol/protocol.js';
import { PendingRequests } from '../../../shared/worker-protocol/requests.js';

// Request/response over any transport: ids assigned here, replies matched by id and reply type.

type DemoProtocol = {
  toWorker: { type: 'get'; id: string; key: string } | { type: 'put'; id: string; key: string; value: string } | { type: 'poke' };
  fromWorker: ReadyMessage | { type: 'got'; id: string; value: string } | { type: 'put-done'; id: string };
  replies: { get: { type: 'got'; id: string; value: string }; put: { type: 'put-done'; id: string } };
};
const demo = defineProtocol<DemoProtocol>('demo worker', {
  toWorker: { get: true, put: true, poke: true },
  fromWorker: { ready: true, got: true, 'put-done': true },
  replies: { get: 'got', put: 'put-done' },
});

test('requests get increasing ids, and replies settle them in any order', async () => {
  const pending = new PendingRequests(demo);
  const sent: unknown[] = [];
  const a = pending.request({ type: 'get', key: 'a' }, (m) => sent.push(m));
  const b = pending.request({ type: 'put', key: 'b', value: 'v' }, (m) => sent.push(m));
  assert.deepEqual(sent, [
    { type: 'get', key: 'a', id: '1' },
    { type: 'put', key: 'b', value: 'v', id: '2' },
  ]);
  assert.equal(pending.size, 2);
  assert.equal(pending.settle({ type: 'put-done', id: '2' }), true);
  assert.equal(pending.settle({ type: 'got', id: '1', value: 'A' }), true);
  assert.deepEqual(await a, { type: 'got', id: '1', value: 'A' });
  assert.deepEqual(await b, { type: 'put-done', id: '2' });
  assert.equal(pending.size, 0);
});

test('settle ignores messages without an id, with an unknown id, or of the wrong reply type', async () => {
  const pending = new PendingRequests(demo);
  const a = pending.request({ type: 'get', key: 'a' }, () => undefined);
  assert.equal(pending.settle({ type: 'ready' }), false);
  assert.equal(pending.settle({ type: 'got', id: '99', value: 'x' }), false);
  assert.equal(pending.settle({ type: 'put-done', id: '1' }), false, 'a put reply does not answer a get');
  assert.equal(pending.size, 1);
  assert.equal(pending.settle({ type: 'got', id: '1', value: 'ok' }), true);
  assert.equal(pending.settle({ type: 'got', id: '1', value: 'again' }), false, 'settled once');
  assert.equal((await a).value, 'ok');
});

test('a transmit that throws fails that request and forgets it', async () => {
  const pending = new PendingRequests(demo);
  await assert.rejects(pending.request({ type: 'get', key: 'a' }, () => { throw new Error('pipe closed'); }), { message: 'pipe closed' });
  await assert.rejects(pending.request({ type: 'get', key: 'a' }, () => { throw 'EPIPE'; }), (e: unknown) => e instanceof Error && e.message === 'EPIPE');
  assert.equal(pending.size, 0);
  const sent: Array<{ id: string }> = [];
  void pending.request({ type: 'get', key: 'b' }, (m) => sent.push(m));
  assert.equal(sent[0]!.id, '3', 'ids are not reused');
});

test('close fails every waiting request and every later one with a fresh error', async () => {
  const pending = new PendingRequests(demo);
  const a = pending.request({ type: 'get', key: 'a' }, () => undefined);
  const b = pending.request({ type: 'put', key: 'b', value: 'v' }, () => undefined);
  let made = 0;
  pending.close(() => new Error(`worker exited #${++made}`));
  await assert.rejects(a, { message: 'worker exited #1' });
  await assert.rejects(b, { message: 'worker exited #2' });
  assert.equal(pending.size, 0);
  let transmitted = false;
  await assert.rejects(pending.request({ type: 'get', key: 'c' }, () => { transmitted = true; }), { message: 'worker exited #3' });
  assert.equal(transmitted, false);
  assert.equal(pending.settle({ type: 'got', id: '1', value: 'late' }), false);
});
