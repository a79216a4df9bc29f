import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, type Frame, type FrameError } from '../../../shared/worker-protocol/frame.js';
import { defineProtocol, messageDecoder, messageId, PendingRequests, type ReadyMessage } from '../../../shared/worker-protocol/protocol.js';

// What a worker kind's protocol is: its message type names by direction, and each request's reply type.

type Echo = { type: 'echo'; id: string; text: string };
type EchoReply = { type: 'echoed'; id: string; text: string };
type DemoProtocol = {
  toWorker: Echo | { type: 'stop' };
  fromWorker: ReadyMessage | EchoReply | { type: 'log'; line: string };
  replies: { echo: EchoReply };
};
const demo = defineProtocol<DemoProtocol>('demo worker', {
  toWorker: { echo: true, stop: true },
  fromWorker: { ready: true, echoed: true, log: true },
  replies: { echo: 'echoed' },
});

test('defineProtocol keeps the kind and tells each direction\'s types apart', () => {
  assert.equal(demo.kind, 'demo worker');
  assert.equal(demo.isToWorker({ type: 'echo', id: '1', text: 'x' }), true);
  assert.equal(demo.isToWorker({ type: 'stop' }), true);
  assert.equal(demo.isToWorker({ type: 'echoed', id: '1' }), false, 'a worker-to-supervisor type');
  assert.equal(demo.isFromWorker({ type: 'echoed', id: '1' }), true);
  assert.equal(demo.isFromWorker({ type: 'ready' }), true);
  assert.equal(demo.isFromWorker({ type: 'stop' }), false);
  assert.equal(demo.isFromWorker({ type: 'toString' }), false, 'no inherited names');
  assert.equal(demo.isFromWorker({ type: '__proto__' }), false);
});

test('isReplyTo matches a request type to its reply type only', () => {
  assert.equal(demo.isReplyTo('echo', { type: 'echoed', id: '1', text: 'x' }), true);
  assert.equal(demo.isReplyTo('echo', { type: 'log', line: 'x' }), false);
  assert.equal(demo.isReplyTo('echo', { type: 'ready' }), false);
});

test('messageId is a message\'s string id, else undefined', () => {
  assert.equal(messageId({ type: 'echoed', id: '7' }), '7');
  assert.equal(messageId({ type: 'echoed', id: 7 }), undefined);
  assert.equal(messageId({ type: 'ready' }), undefined);
});

function recorder() {
  const messages: Frame[] = [];
  const errors: FrameError[] = [];
  const decoder = messageDecoder(demo.isFromWorker, (m) => messages.push(m), (e) => errors.push(e), 1024);
  return { decoder, messages, errors };
}

test('messageDecoder delivers the messages its protocol accepts, in order, across chunk boundaries', () => {
  const { decoder, messages, errors } = recorder();
  const wire = Buffer.concat([encodeFrame({ type: 'ready' }), encodeFrame({ type: 'log', line: 'a' }), encodeFrame({ type: 'echoed', id: '1', text: 'b' })]);
  for (let i = 0; i < wire.length; i += 3) decoder.push(wire.subarray(i, i + 3));
  assert.deepEqual(messages, [{ type: 'ready' }, { type: 'log', line: 'a' }, { type: 'echoed', id: '1', text: 'b' }]);
  assert.deepEqual(errors, []);
});

test('an unknown type fails the channel once, like a malformed frame, and nothing is delivered after it', () => {
  const { decoder, messages, errors } = recorder();
  decoder.push(Buffer.concat([encodeFrame({ type: 'ready' }), encodeFrame({ type: 'stop' }), encodeFrame({ type: 'log', line: 'late' })]));
  decoder.push(encodeFrame({ type: 'ready' }));
  assert.deepEqual(messages, [{ type: 'ready' }]);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.name, 'FrameError');
  assert.equal(errors[0]!.message, 'incoming frame has unknown type "stop"');
});

test('the unknown type is quoted as JSON and cut to 80 characters', () => {
  const { decoder, errors } = recorder();
  decoder.push(encodeFrame({ type: `x"${'y'.repeat(200)}` }));
  assert.equal(errors[0]!.message, `incoming frame has unknown type ${JSON.stringify(`x"${'y'.repeat(200)}`).slice(0, 80)}`);
  assert.equal(errors[0]!.message.length, 'incoming frame has unknown type '.length + 80);
});

test('messageDecoder enforces its byte cap', () => {
  const { decoder, messages, errors } = recorder();
  decoder.push(encodeFrame({ type: 'log', line: 'z'.repeat(2000) }, 1 << 20));
  assert.deepEqual(messages, []);
  assert.match(errors[0]!.message, /over the 1024-byte cap/);
});

// Request/response over any transport: ids assigned here, replies matched by id and reply type.

type KvProtocol = {
  toWorker: { type: 'get'; id: string; key: string } | { type: 'put'; id: string; key: string; value: string } | { type: 'poke' };
  fromWorker: ReadyMessage | { type: 'got'; id: string; value: string } | { type: 'put-done'; id: string };
  replies: { get: { type: 'got'; id: string; value: string }; put: { type: 'put-done'; id: string } };
};
const kv = defineProtocol<KvProtocol>('kv worker', {
  toWorker: { get: true, put: true, poke: true },
  fromWorker: { ready: true, got: true, 'put-done': true },
  replies: { get: 'got', put: 'put-done' },
});

test('requests get increasing ids, and replies settle them in any order', async () => {
  const pending = new PendingRequests(kv);
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
  const pending = new PendingRequests(kv);
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
  const pending = new PendingRequests(kv);
  await assert.rejects(pending.request({ type: 'get', key: 'a' }, () => { throw new Error('pipe closed'); }), { message: 'pipe closed' });
  await assert.rejects(pending.request({ type: 'get', key: 'a' }, () => { throw 'EPIPE'; }), (e: unknown) => e instanceof Error && e.message === 'EPIPE');
  assert.equal(pending.size, 0);
  const sent: Array<{ id: string }> = [];
  void pending.request({ type: 'get', key: 'b' }, (m) => sent.push(m));
  assert.equal(sent[0]!.id, '3', 'ids are not reused');
});

test('close fails every waiting request and every later one with a fresh error', async () => {
  const pending = new PendingRequests(kv);
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
