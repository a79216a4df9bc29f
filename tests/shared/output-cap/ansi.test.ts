import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepSgrOnly, stripAnsi } from '../../../shared/output-cap/ansi.js';
import { seededInts } from '../../helpers/random.js';

// ANSI escape stripping, a port of Hermes' strip_ansi as a linear scanner, and its SGR-keeping twin.

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

test('keepSgrOnly keeps colour and attribute sequences and removes every other escape', () => {
  assert.equal(keepSgrOnly('\x1b[1;31mred\x1b[0m'), '\x1b[1;31mred\x1b[0m');
  assert.equal(keepSgrOnly('\x1b[38:2:255:0:0mrgb\x1b[m'), '\x1b[38:2:255:0:0mrgb\x1b[m');
  assert.equal(keepSgrOnly('\x1b[2J\x1b[Hclear\x1b]0;t\x07'), 'clear', 'erase, cursor move and OSC are not SGR');
  assert.equal(keepSgrOnly('\x1b[?25mx'), 'x', 'a private marker makes it not SGR');
  assert.equal(keepSgrOnly('\x9b1mx'), 'x', 'the 8-bit CSI form is not kept');
  assert.equal(keepSgrOnly('a\x1b(Bb\x85c'), 'abc');
  const clean = 'no escapes at all';
  assert.equal(keepSgrOnly(clean), clean);
});

test('removing the kept SGR sequences gives what stripAnsi gives', () => {
  // ESC only as `ESC [` or `ESC ]`, which always start a removed sequence, and no 8-bit controls:
  // otherwise a removal can bring a stray ESC and a `[m` together, which is SGR-shaped only after it.
  const alphabet = ['\x1b[', '\x1b]', '[', 'm', ';', ':', '1', '3', '?', 'J', '\x07', '\\', '(', 'B', 'a', ' '];
  const rand = seededInts(99);
  for (let round = 0; round < 5_000; round++) {
    let s = '';
    const len = rand(30);
    for (let i = 0; i < len; i++) s += alphabet[rand(alphabet.length)];
    assert.equal(keepSgrOnly(s).replace(/\x1b\[[0-9:;]*m/g, ''), stripAnsi(s), JSON.stringify(s));
  }
});
