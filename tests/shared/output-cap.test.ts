import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedCollector, capHeadTail, keepSgrOnly, stripAnsi, truncationNotice } from '../../shared/output-cap.js';

// The public surface of output shaping, composed the way its callers compose it: Hermes' terminal
// pipeline truncates first and strips escapes after, so the notice counts the raw characters.
// The pieces have their own tests under tests/shared/output-cap/.

test('truncate then strip: the notice counts escape characters, the kept text has none', () => {
  const raw = '\x1b[32m' + 'ok '.repeat(10) + '\x1b[0m';
  const capped = capHeadTail(raw, 20);
  assert.equal(capped.totalChars, 39);
  assert.equal(capped.omittedChars, 19);
  // Head: 8 characters, 5 of them the colour; tail: 12 characters, 4 of them the reset.
  assert.equal(stripAnsi(capped.text), 'ok ' + truncationNotice(19, 39) + 'k ok ok ');
  assert.equal(keepSgrOnly(capped.text), capped.text);
});

test('the collector\'s text strips like any other output', () => {
  const c = new BoundedCollector({ maxBytes: 64 });
  c.push('\x1b]0;title\x07hello\n');
  c.push(Buffer.from('\x1b[1mbold\x1b[0m\n'));
  assert.equal(stripAnsi(c.result().text), 'hello\nbold\n');
});
