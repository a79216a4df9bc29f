import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedCollector, capHeadTail, stripAnsi, truncationNotice } from '../../shared/output-cap.js';
import { seededInts } from '../helpers/random.js';

// ---------------------------------------------------------------------------------------------
// capHeadTail
// ---------------------------------------------------------------------------------------------

test('capHeadTail produces Hermes\' exact notice between head and tail', () => {
  const r = capHeadTail('0123456789ABCDEFGHIJKLMNO', 10);
  assert.equal(r.text, '0123\n\n... [OUTPUT TRUNCATED - 15 chars omitted out of 25 total] ...\n\nJKLMNO');
  assert.equal(r.truncated, true);
  assert.equal(r.totalChars, 25);
  assert.equal(r.omittedChars, 15);
});

test('capHeadTail keeps the first 40% and the last 60% of maxChars (50,000 → 20,000 + 30,000)', () => {
  const text = 'h'.repeat(20_000) + 'x'.repeat(70_000) + 't'.repeat(30_000);
  const r = capHeadTail(text, 50_000);
  const notice = truncationNotice(70_000, 120_000);
  assert.equal(notice, '\n\n... [OUTPUT TRUNCATED - 70000 chars omitted out of 120000 total] ...\n\n');
  assert.equal(r.text, 'h'.repeat(20_000) + notice + 't'.repeat(30_000));
});

test('capHeadTail leaves text of exactly maxChars alone and truncates one more', () => {
  assert.deepEqual(capHeadTail('abcdefghij', 10), { text: 'abcdefghij', truncated: false, totalChars: 10, omittedChars: 0 });
  assert.equal(capHeadTail('abcdefghijk', 10).truncated, true);
});

test('capHeadTail counts code points like Python len(): astral characters are never split', () => {
  // 12 code points, 24 UTF-16 units: within a 12-char cap despite .length 24.
  const emoji = '😀'.repeat(12);
  assert.equal(capHeadTail(emoji, 12).truncated, false);
  const r = capHeadTail(emoji + '😀', 12); // 13 code points
  assert.equal(r.text, '😀'.repeat(4) + truncationNotice(1, 13) + '😀'.repeat(8));
  // No lone surrogate: a UTF-8 round trip would turn one into U+FFFD.
  assert.equal(Buffer.from(r.text, 'utf8').toString('utf8'), r.text);
});

test('capHeadTail honours a custom head ratio and the thousands option', () => {
  const r = capHeadTail('a'.repeat(5) + 'b'.repeat(12_340) + 'c'.repeat(5), 10, 0.5, { thousands: true });
  assert.equal(r.text, 'aaaaa\n\n... [OUTPUT TRUNCATED - 12,340 chars omitted out of 12,350 total] ...\n\nccccc');
});

// ---------------------------------------------------------------------------------------------
// stripAnsi
// ---------------------------------------------------------------------------------------------

test('stripAnsi removes CSI, OSC (BEL and ST), DCS, nF, Fe and 8-bit C1 sequences', () => {
  assert.equal(stripAnsi('\x1b[1;31mred\x1b[0m'), 'red');
  assert.equal(stripAnsi('a\x1b]0;title\x07b'), 'ab');
  assert.equal(stripAnsi('a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b'), 'alinkb');
  assert.equal(stripAnsi('a\x1bPq#0;2;0;0;0\x1b\\b'), 'ab');
  assert.equal(stripAnsi('a\x1b(Bb'), 'ab'); // nF: charset designation
  assert.equal(stripAnsi('a\x1bMb\x1b7c'), 'abc'); // Fe / Fp
  assert.equal(stripAnsi('a\x9b2Jb\x9d0;t\x9cc\x85d'), 'abcd');
  assert.equal(stripAnsi('a\x1b]unterminated'), 'aunterminated'); // falls back to Fe `ESC ]`
});

test('stripAnsi returns clean text unchanged', () => {
  const s = 'plain text, tabs\tand\nnewlines, ünïcödé 😀';
  assert.equal(stripAnsi(s), s);
});

// Hermes' `_ANSI_ESCAPE_RE`, transliterated: the oracle the scanner must agree with.
const HERMES_ANSI_RE =
  /\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\][\s\S]*?(?:\x07|\x1b\\)|[PX^_][\s\S]*?(?:\x1b\\)|[\x20-\x2f]+[\x30-\x7e]|[\x30-\x7e])|\x9b[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x9d[\s\S]*?(?:\x07|\x9c)|[\x80-\x9f]/g;

test('stripAnsi matches Hermes\' regex on random escape-heavy input', () => {
  const alphabet = ['\x1b', '[', ']', 'P', 'X', '^', '_', '\\', '\x07', '\x9b', '\x9c', '\x9d', '\x85', ' ', '(', '0', ';', '1', 'm', 'A', 'z', '~', '\n', 'é'];
  const rand = seededInts(12345);
  for (let round = 0; round < 20_000; round++) {
    let s = '';
    const len = rand(40);
    for (let i = 0; i < len; i++) s += alphabet[rand(alphabet.length)];
    assert.equal(stripAnsi(s), s.replace(HERMES_ANSI_RE, ''), JSON.stringify(s));
  }
});

test('stripAnsi stays linear on many unterminated OSC openers', () => {
  const evil = '\x1b]'.repeat(200_000) + 'tail';
  const started = process.hrtime.bigint();
  const out = stripAnsi(evil);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.equal(out, 'tail');
  assert.ok(ms < 1000, `took ${ms} ms`);
});

// ---------------------------------------------------------------------------------------------
// BoundedCollector
// ---------------------------------------------------------------------------------------------

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
