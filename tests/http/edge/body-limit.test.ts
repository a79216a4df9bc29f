import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCappedBody } from '../../../supervisor/http/edge/body-limit.js';

// The one request-body cap: a declared length is judged before reading, a chunked body is read
// under the cap.

const post = (body: BodyInit, headers: Record<string, string> = {}) => new Request('http://127.0.0.1/mcp', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

function chunked(parts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });
}

test('a declared length at the cap is read; one above it is refused without reading', async () => {
  assert.equal(await readCappedBody(post('abcd', { 'content-length': '4' }), 4), 'abcd');
  const over = post('abcde', { 'content-length': '5' });
  assert.equal(await readCappedBody(over, 4), undefined);
  assert.equal(over.bodyUsed, false, 'the body was never read');
});

test('a chunked body is read under the cap and refused past it', async () => {
  assert.equal(await readCappedBody(post(chunked(['ab', 'cd'])), 4), 'abcd');
  assert.equal(await readCappedBody(post(chunked(['ab', 'cd', 'e'])), 4), undefined);
});
