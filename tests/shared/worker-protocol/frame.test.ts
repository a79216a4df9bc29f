import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, FrameDecoder, FrameError, type Frame } from '../../../shared/worker-protocol/frame.js';

// The supervisor <-> worker wire (shared/worker-protocol/frame.ts): 4-byte big-endian length, then UTF-8 JSON.

/** A hand-made frame: `announced` (default: the body's real length) in the header, then `body`. */
function rawFrame(body: string | Buffer, announced?: number): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const head = Buffer.alloc(4);
  head.writeUInt32BE(announced ?? bytes.length, 0);
  return Buffer.concat([head, bytes]);
}

/** A decoder that records what it sees. */
function recorder(maxBytes?: number) {
  const frames: Frame[] = [];
  const errors: FrameError[] = [];
  const decoder = new FrameDecoder(
    (f) => frames.push(f),
    (e) => errors.push(e),
    maxBytes,
  );
  return { decoder, frames, errors };
}

/** A frame whose JSON body is exactly `size` bytes long. */
function frameOfSize(size: number): Frame {
  const overhead = Buffer.byteLength(JSON.stringify({ type: 'pad', pad: '' }), 'utf8');
  const frame = { type: 'pad', pad: 'x'.repeat(size - overhead) };
  assert.equal(Buffer.byteLength(JSON.stringify(frame), 'utf8'), size);
  return frame;
}

test('round trip: encode then decode gives the same object back', () => {
  const message: Frame = { type: 'exec', id: 'a1', command: 'echo héllo ✓', n: 42, nested: { list: [1, null, true] } };
  const encoded = encodeFrame(message);
  const body = JSON.stringify(message);
  assert.equal(encoded.readUInt32BE(0), Buffer.byteLength(body, 'utf8'), 'big-endian byte length of the UTF-8 body');
  assert.equal(encoded.subarray(4).toString('utf8'), body);
  const { decoder, frames, errors } = recorder();
  decoder.push(encoded);
  assert.deepEqual(frames, [message]);
  assert.deepEqual(errors, []);
});

test('a frame split across many chunks (one byte at a time) is decoded once, whole', () => {
  const message: Frame = { type: 'result', id: 'x', output: 'ünïcødé '.repeat(50) };
  const encoded = encodeFrame(message);
  const { decoder, frames, errors } = recorder();
  for (let i = 0; i < encoded.length; i++) {
    decoder.push(encoded.subarray(i, i + 1));
    if (i < encoded.length - 1) assert.equal(frames.length, 0, `no frame before the last byte (byte ${i})`);
  }
  assert.deepEqual(frames, [message]);
  assert.deepEqual(errors, []);
});

test('several frames in one chunk, and a chunk boundary inside the header of the next', () => {
  const messages: Frame[] = [{ type: 'ready' }, { type: 'result', id: '1', exitCode: 0 }, { type: 'result', id: '2', exitCode: 1 }, { type: 'done' }];
  const all = Buffer.concat(messages.map((m) => encodeFrame(m)));
  const { decoder, frames, errors } = recorder();
  decoder.push(all);
  assert.deepEqual(frames, messages);

  // Three frames and two bytes of the fourth's header, then the rest.
  const cut = all.length - encodeFrame(messages[3]!).length + 2;
  const second = recorder();
  second.decoder.push(all.subarray(0, cut));
  assert.deepEqual(second.frames, messages.slice(0, 3));
  second.decoder.push(all.subarray(cut));
  assert.deepEqual(second.frames, messages);
  assert.deepEqual([...errors, ...second.errors], []);
});

test('a frame exactly at the cap is accepted; one byte over is rejected by the encoder', () => {
  const cap = 256;
  const atCap = frameOfSize(cap);
  const overCap = frameOfSize(cap + 1);
  const encoded = encodeFrame(atCap, cap);
  assert.equal(encoded.length, 4 + cap);
  const { decoder, frames, errors } = recorder(cap);
  decoder.push(encoded);
  assert.deepEqual(frames, [atCap]);
  assert.deepEqual(errors, []);

  assert.throws(() => encodeFrame(overCap, cap), (e: unknown) => e instanceof FrameError && e.name === 'FrameError' && /257 bytes exceeds the 256-byte cap/.test(e.message));
});

test('one byte over the cap: the decoder reports an error once, then ignores further input', () => {
  const cap = 256;
  const { decoder, frames, errors } = recorder(cap);
  decoder.push(encodeFrame({ type: 'before' }, cap));
  decoder.push(rawFrame(JSON.stringify(frameOfSize(cap + 1))));
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof FrameError);
  assert.match(errors[0]!.message, /257 bytes, over the 256-byte cap/);
  // Later input, valid or not, is ignored: no frame, no second error.
  decoder.push(encodeFrame({ type: 'after' }, cap));
  decoder.push(rawFrame('not json'));
  decoder.push(rawFrame('{}', 0xffffffff));
  assert.deepEqual(frames, [{ type: 'before' }]);
  assert.equal(errors.length, 1);
});

test('a header announcing more than the cap is rejected before the body arrives', () => {
  const { decoder, frames, errors } = recorder(1024);
  decoder.push(rawFrame(Buffer.alloc(0), 1025)); // the header alone, no body
  assert.equal(errors.length, 1);
  assert.match(errors[0]!.message, /announces 1025 bytes, over the 1024-byte cap/);

  // The default cap (derived from the default workerTransportMaxBytes) against a 4 GiB announcement, header split in two.
  const big = recorder();
  const head = rawFrame(Buffer.alloc(0), 0xffffffff);
  big.decoder.push(head.subarray(0, 2));
  assert.equal(big.errors.length, 0, 'not before the header is complete');
  big.decoder.push(head.subarray(2));
  assert.equal(big.errors.length, 1);
  assert.match(big.errors[0]!.message, /announces 4294967295 bytes/);
  assert.deepEqual([...frames, ...big.frames], []);
});

for (const [label, body, pattern] of [
  ['malformed JSON', '{"type": "x",', /not valid JSON/],
  ['invalid UTF-8 / binary garbage', Buffer.from([0xff, 0xfe, 0x00, 0x01]), /not valid JSON/],
  ['a JSON array', '[{"type":"x"}]', /not a typed JSON object/],
  ['JSON null', 'null', /not a typed JSON object/],
  ['a JSON string', '"ready"', /not a typed JSON object/],
  ['an object without type', '{"id":"1"}', /not a typed JSON object/],
  ['an object whose type is not a string', '{"type":7}', /not a typed JSON object/],
] as const) {
  test(`${label} is rejected (once; later frames ignored)`, () => {
    const { decoder, frames, errors } = recorder();
    decoder.push(Buffer.concat([rawFrame(body), encodeFrame({ type: 'after' })]));
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof FrameError);
    assert.match(errors[0]!.message, pattern);
    decoder.push(encodeFrame({ type: 'later' }));
    assert.deepEqual(frames, []);
    assert.equal(errors.length, 1);
  });
}
