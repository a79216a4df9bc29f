import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact } from '../../shared/redact.js';

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
