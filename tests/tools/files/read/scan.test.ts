import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { scanChunkBytes } from '../../../../supervisor/tools/files/read/scan.js';
import { Cases, call } from '../fixture.js';

// read_file sizes its scan buffer to the file: a 6-byte file must not cost a zero-filled mebibyte
// per call (profiled under a read_file loop, that made a quarter of the gateway's CPU time garbage
// collection). Measured with the process's own count of memory held by ArrayBuffers (Buffers
// live there), not with a clock: allocating 1 MiB per call lets that count climb by tens of
// mebibytes between collections; sized buffers from Node's shared pool leave it flat.

const cases = new Cases();
after(() => cases.cleanup());

const MiB = 1024 * 1024;
const READS = 300;

test(`${READS} reads of a 6-byte file hold no per-call mebibyte: ArrayBuffer memory stays within 8 MiB`, async () => {
  const c = cases.make();
  c.file('tiny.txt', 'hello\n');
  assert.equal((await call(c.read, { path: 'tiny.txt' })).content, '1|hello');
  const base = process.memoryUsage().arrayBuffers;
  let peak = 0;
  for (let i = 0; i < READS; i++) {
    await call(c.read, { path: 'tiny.txt' });
    peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
  }
  assert.ok(peak < 8 * MiB, `ArrayBuffer memory rose by ${(peak / MiB).toFixed(1)} MiB over ${READS} reads`);
});

test('a scan step reads the file as stat saw it plus one byte, within the budget and 1 MiB', () => {
  assert.equal(scanChunkBytes(6, 64 * MiB), 7);
  assert.equal(scanChunkBytes(0, 64 * MiB), 1, 'an empty file still gets one read, in case it grew');
  assert.equal(scanChunkBytes(10 * MiB, 64 * MiB), MiB);
  assert.equal(scanChunkBytes(10 * MiB, 1000), 1000);
});
