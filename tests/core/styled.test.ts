import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepSgrOnly, stripAnsi } from '../../shared/output-cap.js';
import { redact } from '../../shared/redact.js';
import { normalizeResult } from '../../supervisor/core/result.js';
import { STYLED_META_KEY, styledTwin, withoutSgr } from '../../supervisor/core/styled.js';
import { seededInts } from '../helpers/random.js';

// Styled twins (supervisor/core/styled.ts): the colours of a text the model reads plain, for the
// result view. The promise under test: a twin's visible text is the plain text exactly, or there
// is no twin, so the view never shows what the model's result does not hold.

const GREEN = '\x1b[32m';
const RESET = '\x1b[0m';

test('keepSgrOnly keeps colours and drops every other sequence as stripAnsi does', () => {
  const raw = `${GREEN}ok${RESET} \x1b]8;;https://evil.example/?t=SECRET\x07link\x1b]8;;\x07 \x1b[2J\x1b[10;10H\x1b]0;title\x07\x1b[38;5;208;1mx\x1b[?25l`;
  const kept = keepSgrOnly(raw);
  assert.equal(kept, `${GREEN}ok${RESET} link \x1b[38;5;208;1mx`);
  assert.ok(!kept.includes('evil.example'), 'an OSC hyperlink target never survives');
  assert.equal(withoutSgr(kept), stripAnsi(raw));
});

test('removing the kept colours gives stripAnsi, wherever the stripped text is free of controls', () => {
  const alphabet = ['\x1b', '[', ']', 'm', '3', '1', ';', ':', '?', '\x07', '\x9b', '\x9d', '\x85', '\\', 'a', ' ', '\n', 'é'];
  const rand = seededInts(2026);
  for (let round = 0; round < 20_000; round++) {
    let s = '';
    const len = rand(30);
    for (let i = 0; i < len; i++) s += alphabet[rand(alphabet.length)];
    const plain = stripAnsi(s);
    // A stripped text can still hold a control character (a lone ESC, say): no twin is ever made
    // of such text, so there the two may differ.
    if (!/[\x1b\x80-\x9f]/.test(plain)) assert.equal(withoutSgr(keepSgrOnly(s)), plain, JSON.stringify(s));
    const twin = styledTwin(s, plain);
    if (twin !== undefined) assert.equal(withoutSgr(twin), plain, JSON.stringify(s));
  }
});

test('a twin of the whole text, of its tail (the colour in force kept), and of its trimmed middle', () => {
  const raw = `${GREEN}line one\nline two${RESET}\n\x1b[31mline three${RESET}\n`;
  const plain = stripAnsi(raw);
  assert.equal(styledTwin(raw, plain), raw);
  // A tail that starts inside the green stretch opens with that colour.
  const tail = plain.slice(-15);
  assert.equal(tail, 'two\nline three\n');
  assert.equal(styledTwin(raw, tail), `${GREEN}two${RESET}\n\x1b[31mline three${RESET}\n`);
  // Surrounding whitespace stripped, as the terminal's output is.
  const padded = `\n  ${GREEN}ok${RESET}  \n`;
  assert.equal(styledTwin(padded, 'ok'), `${GREEN}ok`);
});

test('no twin without colours, or when the plain text is not the output (redaction changed it)', () => {
  assert.equal(styledTwin('no colours here', 'no colours here'), undefined);
  assert.equal(styledTwin('\x1b[2Jcursor only', 'cursor only'), undefined);
  const secret = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(3);
  const raw = `${GREEN}export OPENAI_API_KEY=${secret}${RESET}\n`;
  const redacted = redact(stripAnsi(raw), { codeFile: true });
  assert.notEqual(redacted, stripAnsi(raw), 'the fixture holds a secret redaction masks');
  assert.equal(styledTwin(raw, redacted), undefined);
});

test('normalizeResult sends a twin only where it matches the field as sent', () => {
  const raw = `${GREEN}built${RESET} 3 files`;
  const plain = stripAnsi(raw);
  const twin = styledTwin(raw, plain)!;
  const sent = normalizeResult({ structured: { output: plain, exit_code: 0 }, styled: { output: twin } }, { maxChars: 10_000 });
  assert.deepEqual(sent._meta, { [STYLED_META_KEY]: { output: twin } });
  assert.equal(sent.structuredContent?.output, plain, 'the model reads the plain text');
  assert.ok(!(sent.content[0]!.text as string).includes('\x1b'), 'and no escape in its text');

  // The default redaction masks the field: its twin, holding the secret, is not sent.
  const secret = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(3);
  const leaky = `${GREEN}${secret}${RESET}`;
  const masked = normalizeResult({ structured: { output: stripAnsi(leaky) }, styled: { output: keepSgrOnly(leaky) } }, { maxChars: 10_000 });
  assert.equal(masked._meta, undefined);
  assert.ok(!JSON.stringify(masked).includes(secret));

  // A cap that replaces the structure by its receipt leaves no field to match.
  const capped = normalizeResult({ structured: { output: plain.repeat(50) }, styled: { output: twin.repeat(50) } }, { maxChars: 200 });
  assert.equal(capped.structuredContent?.truncated, true);
  assert.equal(capped._meta, undefined);

  // A twin of another text, or of a field that is not a string, is dropped.
  const other = normalizeResult({ structured: { output: plain, exit_code: 0 }, styled: { output: `${GREEN}something else`, exit_code: `${GREEN}0` } }, { maxChars: 10_000 });
  assert.equal(other._meta, undefined);
});
