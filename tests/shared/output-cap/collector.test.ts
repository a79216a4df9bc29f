import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedCollector, DEFAULT_TRANSPORT_CAP_BYTES } from '../../../shared/output-cap/collector.js';
import { truncationNotice } from '../../../shared/output-cap/head-tail.js';
import { seededInts } from '../../helpers/random.js';

// The byte-stream head/tail collector of execute_code stdout: first 40% of the bytes kept, last
// 60% in a rolling window, so memory stays bounded however much the child prints.

test('BoundedCollector under its cap returns everything, untruncated', () => {
  const c = new BoundedCollector({ maxBytes: 100 });
  c.push(Buffer.from('hello '));
  c.push('world');
  assert.deepEqual(c.result(), { text: 'hello world', truncated: false, totalBytes: 11, keptBytes: 11, omittedBytes: 0 });
});

test('BoundedCollector at exactly its cap is not truncated', () => {
  const c = new BoundedCollector({ maxBytes: 10 });
  c.push('0123456789');
  assert.equal(c.truncated, false);
  assert.equal(c.result().text, '0123456789');
});

test('BoundedCollector keeps exactly the first 40% and last 60% of bytes, however the stream is chunked', () => {
  const data = Buffer.from(Array.from({ length: 5_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));
  const rand = seededInts(7);
  for (let round = 0; round < 50; round++) {
    const c = new BoundedCollector({ maxBytes: 1_000 });
    let off = 0;
    while (off < data.length) {
      const n = Math.min(data.length - off, rand(700));
      c.push(data.subarray(off, off + n));
      off += n;
    }
    const r = c.result();
    const expected =
      data.subarray(0, 400).toString() + truncationNotice(4_000, 5_000, { thousands: true }) + data.subarray(4_400).toString();
    assert.equal(r.text, expected);
    assert.deepEqual([r.truncated, r.totalBytes, r.keptBytes, r.omittedBytes], [true, 5_000, 1_000, 4_000]);
  }
});

test('BoundedCollector handles a single chunk larger than its whole cap', () => {
  const c = new BoundedCollector({ maxBytes: 10 });
  c.push('ABCDEFGHIJKLMNOPQRSTUVWXYZ');
  assert.equal(c.result().text, 'ABCD' + truncationNotice(16, 26) + 'UVWXYZ');
});

test('BoundedCollector memory stays bounded while 20 MiB stream through a 1 MiB cap', () => {
  const c = new BoundedCollector(); // default 1 MiB
  assert.equal(c.maxBytes, 1024 * 1024);
  assert.equal(DEFAULT_TRANSPORT_CAP_BYTES, c.maxBytes);
  const chunk = Buffer.alloc(64 * 1024);
  const chunks = (20 * 1024 * 1024) / chunk.length;
  const before = process.memoryUsage().arrayBuffers;
  let peakAllocated = 0;
  for (let i = 0; i < chunks; i++) {
    // One reused source buffer: the collector must copy, or head/tail would show the last fill.
    chunk.fill(0x41 + (i % 26));
    c.push(chunk);
    peakAllocated = Math.max(peakAllocated, c.allocatedBytes);
  }
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(peakAllocated <= c.maxBytes, `allocated ${peakAllocated}`);
  assert.ok(grown < 6 * 1024 * 1024, `arrayBuffers grew by ${grown}`);
  const r = c.result();
  assert.equal(r.totalBytes, 20 * 1024 * 1024);
  assert.equal(r.truncated, true);
  assert.equal(r.keptBytes, 1024 * 1024);
  const headCap = Math.trunc(1024 * 1024 * 0.4);
  const tailCap = 1024 * 1024 - headCap;
  const notice = truncationNotice(20 * 1024 * 1024 - 1024 * 1024, 20 * 1024 * 1024, { thousands: true });
  assert.match(notice, /19,922,944 chars omitted out of 20,971,520 total/);
  const [head, tail] = r.text.split(notice) as [string, string];
  assert.equal(head.length, headCap);
  assert.equal(tail.length, tailCap);
  // Head: chunks 0..6 are 'A'..'G' (64 KiB each); the head ends inside chunk 6.
  assert.equal(head.slice(0, 65_536), 'A'.repeat(65_536));
  assert.equal(head.slice(-10), 'G'.repeat(10));
  // Tail: the last chunk (#319, 319 % 26 = 7 → 'H') is the final 64 KiB.
  assert.equal(tail.slice(-65_536), 'H'.repeat(65_536));
  assert.equal(tail.slice(0, 10), String.fromCharCode(0x41 + ((chunks - 10) % 26)).repeat(10));
});

test('BoundedCollector never splits a UTF-8 sequence at the head or tail cut', () => {
  // '€' is 3 bytes, '😀' 4: with a 21-byte cap the 8-byte head and 13-byte tail both cut mid-sequence.
  const text = '€'.repeat(10) + '😀'.repeat(10);
  const bytes = Buffer.from(text);
  const c = new BoundedCollector({ maxBytes: 21 });
  for (const b of bytes) c.push(Buffer.of(b)); // byte by byte
  const r = c.result();
  assert.ok(!r.text.includes('\ufffd'), r.text);
  const [head, tail] = r.text.split(/\n\n\.\.\. \[OUTPUT TRUNCATED - \d+ chars omitted out of \d+ total\] \.\.\.\n\n/) as [string, string];
  // head cap 8 bytes → two whole '€' (6 bytes); tail cap 13 bytes → three whole '😀' (12 bytes).
  assert.equal(head, '€€');
  assert.equal(tail, '😀😀😀');
  assert.equal(r.keptBytes, 18);
  assert.equal(r.omittedBytes, bytes.length - 18);
});

test('BoundedCollector decodes a sequence split between chunks when nothing is cut', () => {
  const bytes = Buffer.from('a€😀b');
  const c = new BoundedCollector({ maxBytes: 4 + bytes.length });
  for (const b of bytes) c.push(Buffer.of(b));
  assert.equal(c.result().text, 'a€😀b');
});

test('BoundedCollector notice groups digits by default and can use the terminal form', () => {
  const c = new BoundedCollector({ maxBytes: 10 });
  c.push('x'.repeat(12_345));
  assert.match(c.result().text, /\[OUTPUT TRUNCATED - 12,335 chars omitted out of 12,345 total\]/);
  assert.match(c.result({ thousands: false }).text, /\[OUTPUT TRUNCATED - 12335 chars omitted out of 12345 total\]/);
});
