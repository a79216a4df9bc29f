import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, test } from 'node:test';
import { defaultLimits } from '../../../shared/limits.js';
import { Cases, call, text } from './fixture.js';

// read_file of a huge file with a small limit reads at most readFileScanMaxBytes, not the whole
// file just to count its lines: an 8 GiB sparse file answers its first lines at once, with
// total_lines marked as a lower bound. Bytes read are measured with the kernel's own per-process
// counter (/proc/self/io `rchar`), not with a clock.

const cases = new Cases();
after(() => cases.cleanup());

const GiB = 1024 ** 3;

function bytesReadSoFar(): number {
  const m = /^rchar: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'));
  assert.ok(m, '/proc/self/io has rchar');
  return Number(m[1]);
}

test('an 8 GiB sparse file: limit 5 returns lines 1-5 after reading at most the scan budget', async () => {
  const c = cases.make();
  // A text head longer than the 1000-byte binary sniff, then 8 GiB of holes (NUL bytes when read).
  const path = c.file('huge.log', Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  fs.truncateSync(path, 8 * GiB);
  const before = bytesReadSoFar();
  const r = await call(c.read, { path: 'huge.log', limit: 5 });
  const read = bytesReadSoFar() - before;
  assert.equal(r.content, '1|line 1\n2|line 2\n3|line 3\n4|line 4\n5|line 5');
  assert.equal(r.file_size, 8 * GiB);
  assert.equal(r.truncated, true);
  assert.equal(r.total_lines_is_lower_bound, true);
  assert.ok(typeof r.total_lines === 'number' && r.total_lines >= 200, `total_lines counts what was seen: ${r.total_lines}`);
  assert.match(text(r.hint), /^Use offset=6 to continue reading \(showing 1-5 of at least \d+ lines; lines were counted in the first [\d,]+ of 8,589,934,592 bytes only/);
  const budget = defaultLimits().readFileScanMaxBytes;
  assert.ok(read <= budget + 16 * 1024 * 1024, `read ${read} bytes, budget ${budget}`);
});

test('a small budget: lines past it are not served, and the hint says why', async () => {
  const c = cases.make({ readFileScanMaxBytes: 64 * 1024 });
  const line = 'x'.repeat(99);
  c.file('big.txt', `${line}\n`.repeat(2000)); // 200,000 bytes, 2000 lines
  const head = await call(c.read, { path: 'big.txt', limit: 3 });
  assert.equal(head.content, `1|${line}\n2|${line}\n3|${line}`);
  assert.equal(head.total_lines, 656, 'the lines within the first 64 KiB (655 whole, one cut)');
  assert.equal(head.total_lines_is_lower_bound, true);
  const far = await call(c.read, { path: 'big.txt', offset: 1500, limit: 3 });
  assert.equal(far.content, '');
  assert.equal(far.truncated, true);
  assert.match(text(far.hint), /offset 1500 lies beyond what read_file reads of this file/);
});

test('a file within the budget is counted exactly, as before', async () => {
  const c = cases.make({ readFileScanMaxBytes: 64 * 1024 });
  c.file('small.txt', 'a\nb\nc\n');
  const r = await call(c.read, { path: 'small.txt', limit: 1 });
  assert.equal(r.total_lines, 3);
  assert.equal(r.total_lines_is_lower_bound, undefined);
  assert.equal(r.hint, 'Use offset=2 to continue reading (showing 1-1 of 3 lines)');
});
