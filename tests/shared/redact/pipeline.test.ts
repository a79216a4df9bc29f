import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact, runsAssignmentPasses } from '../../../shared/redact/pipeline.js';

// redact(): the passes in Hermes' order, per mode (the passes themselves have their own tests).

// redact() remembers texts its passes left unchanged, per mode. The memo must never change an
// answer: a text that is clean as code (the assignment passes are skipped for code) is still
// redacted when it comes again as ordinary text, and the other way round.

test('a text clean as code is still redacted as ordinary text, in either order', () => {
  // Long enough to be remembered (short texts are cheaper to scan than to look up).
  const assignment = '# settings of the staging environment, read by the deploy script\nOPENAI_API_KEY=hunter2hunter2';
  assert.equal(redact(assignment, { codeFile: true }), assignment);
  assert.equal(redact(assignment, { codeFile: true }), assignment, 'the same answer from the memo');
  assert.notEqual(redact(assignment), assignment);
  assert.equal(redact(assignment), redact(assignment));

  const other = '# settings of the production environment, read by the deploy script\nDATABASE_PASSWORD=swordfish-swordfish';
  const masked = redact(other);
  assert.notEqual(masked, other);
  assert.equal(redact(other, { codeFile: true }), other);
  assert.equal(redact(other), masked);
});

test('clean texts answer the same from the memo, and a secret appended to one is still found', () => {
  const line = 'tool_search: ranked the frozen catalog for "read a file" and answered the five best tools';
  assert.equal(redact(line), line);
  assert.equal(redact(line), line);
  const key = `sk-${'A1b2C3d4'.repeat(4)}`;
  assert.ok(!redact(`${line} ${key}`).includes(key));
});

test('runsAssignmentPasses: ordinary text and secret files, not code or plain file reads', () => {
  assert.equal(runsAssignmentPasses({}), true);
  assert.equal(runsAssignmentPasses({ codeFile: true }), false);
  assert.equal(runsAssignmentPasses({ fileRead: true }), false);
  assert.equal(runsAssignmentPasses({ fileRead: true, secretFile: true }), true);
  assert.equal(runsAssignmentPasses({ codeFile: true, secretFile: true }), true);
});

test('empty text and non-strings pass through untouched', () => {
  assert.equal(redact(''), '');
  const notText = 42 as unknown as string;
  assert.equal(redact(notText), 42);
});

test('each mode masks an assignment and a prefixed key its own way', () => {
  const key = `ghp_${'A1b2C3d4'.repeat(5)}`;
  const text = `TOKEN=${'q'.repeat(24)}\nremote uses ${key}`;
  assert.equal(redact(text), `TOKEN=***\nremote uses ghp_A1...C3d4`);
  assert.equal(redact(text, { codeFile: true }), `TOKEN=${'q'.repeat(24)}\nremote uses ghp_A1...C3d4`);
  assert.equal(redact(text, { fileRead: true }), `TOKEN=${'q'.repeat(24)}\nremote uses «redacted:ghp_…»`);
  assert.equal(redact(text, { fileRead: true, secretFile: true }), `TOKEN=«redacted-secret»\nremote uses «redacted:ghp_…»`);
});

test('a later pass masks an earlier pass\'s head/tail mask again, but keeps a mask that was in the input', () => {
  const key = `sk-${'A1b2C3d4'.repeat(4)}`;
  // Pass 1 masks the key to a head/tail form; pass 2 then masks the whole assigned value.
  assert.equal(redact(`OPENAI_API_KEY=${key}`), 'OPENAI_API_KEY=***');
  assert.equal(redact('OPENAI_API_KEY=sk-A1b...C3d4'), 'OPENAI_API_KEY=sk-A1b...C3d4', 'already masked: idempotent');
});

