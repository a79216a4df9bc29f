import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capHeadTail, truncationNotice } from '../../../shared/output-cap/head-tail.js';

// Hermes' 40% head / 60% tail string cap and its truncation notice.

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

test('truncationNotice prints plain integers by default and groups digits on request', () => {
  assert.equal(truncationNotice(5, 10), '\n\n... [OUTPUT TRUNCATED - 5 chars omitted out of 10 total] ...\n\n');
  assert.equal(truncationNotice(1234567, 1234, { thousands: true }), '\n\n... [OUTPUT TRUNCATED - 1,234,567 chars omitted out of 1,234 total] ...\n\n');
  assert.equal(truncationNotice(999, 100, { thousands: true }), '\n\n... [OUTPUT TRUNCATED - 999 chars omitted out of 100 total] ...\n\n');
  assert.equal(truncationNotice(0, 0, { thousands: false }), '\n\n... [OUTPUT TRUNCATED - 0 chars omitted out of 0 total] ...\n\n');
});

test('capHeadTail with head ratio 1 keeps no tail, and with 0 no head', () => {
  assert.equal(capHeadTail('abcdefghij', 4, 1).text, 'abcd' + truncationNotice(6, 10));
  assert.equal(capHeadTail('abcdefghij', 4, 0).text, truncationNotice(6, 10) + 'ghij');
});

test('capHeadTail truncates the head length like Python int()', () => {
  // 7 * 0.4 = 2.8 → 2 head, 5 tail.
  assert.deepEqual(capHeadTail('0123456789', 7), { text: '01' + truncationNotice(3, 10) + '56789', truncated: true, totalChars: 10, omittedChars: 3 });
});

test('capHeadTail counts a lone surrogate as one character and keeps the empty string whole', () => {
  assert.deepEqual(capHeadTail('', 1), { text: '', truncated: false, totalChars: 0, omittedChars: 0 });
  const lone = '\ud800'.repeat(3);
  assert.deepEqual(capHeadTail(lone, 3), { text: lone, truncated: false, totalChars: 3, omittedChars: 0 });
  assert.equal(capHeadTail('ab\ud800cd', 4).omittedChars, 1);
});

test('capHeadTail refuses a cap that is not a positive integer and a ratio outside [0, 1]', () => {
  for (const max of [0, -1, 1.5, Number.NaN]) assert.throws(() => capHeadTail('abc', max), { name: 'RangeError', message: 'maxChars must be a positive integer' });
  for (const ratio of [-0.1, 1.1, Number.NaN]) assert.throws(() => capHeadTail('abc', 2, ratio), { name: 'RangeError', message: 'headRatio must be within [0, 1]' });
});
