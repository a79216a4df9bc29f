import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, type Frame, type FrameError } from '../../../shared/worker-protocol/frame.js';
import { defineProtocol, messageDecoder, messageId, type ReadyMessage } from '../../../shared/worker-protocol/protocol.js';

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
