import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../../shared/errors.js';
import { readBlocked, repeatWarning, stubBlocked } from '../../../../supervisor/tools/files/read/repeat.js';
import type { ReadRules } from '../../../../supervisor/tools/files/read/rules.js';

const rules = (blockedMarker: boolean) => ({ blockedMarker }) as ReadRules;

test('repeatWarning names the count', () => {
  assert.equal(
    repeatWarning(3),
    'You have read this exact file region 3 times consecutively. The content has not changed since your last read. Use the information you already have. If you are stuck in a loop, stop reading and proceed with writing or responding.',
  );
});

test('readBlocked: FILE_READ_REPEATED with the path and count; the guardrail marker only after 0.19', () => {
  const old = readBlocked('a.txt', 4, rules(false));
  assert.equal(old.code, ErrorCode.FILE_READ_REPEATED);
  assert.ok(old.message.startsWith('BLOCKED: You have read this exact file region 4 times in a row.'));
  assert.deepEqual(old.details, { path: 'a.txt', already_read: 4 });
  assert.deepEqual(readBlocked('a.txt', 5, rules(true)).details, { path: 'a.txt', already_read: 5, guardrail_refusal: true });
});

test('stubBlocked: the stub wording with the number of calls', () => {
  const e = stubBlocked('b.txt', 3, rules(true));
  assert.equal(e.code, ErrorCode.FILE_READ_REPEATED);
  assert.ok(e.message.startsWith('BLOCKED: You have called read_file on this exact region 3 times and the file has NOT changed.'));
  assert.deepEqual(e.details, { path: 'b.txt', already_read: 3, guardrail_refusal: true });
});
