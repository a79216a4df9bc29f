import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ALREADY_MASKED_RE,
  FILE_READ_MASKER,
  MASK,
  maskToken,
  maskUnlessMasked,
  maskValue,
  nonReusableMask,
  OUTPUT_MASKER,
  outputMaskerForOneCall,
  outputMaskerKeepingMasksOf,
  REDACTION_MARKER_RE,
  SECRET_SENTINEL,
} from '../../../shared/redact/mask.js';

// The masking primitives every redaction pass uses: head/tail masks for output, sentinels for file reads.

test('maskToken keeps 6 + 4 characters from 18 code points on, else ***', () => {
  assert.equal(MASK, '***');
  assert.equal(maskToken('abcdefghijklmnopq'), '***', '17 characters');
  assert.equal(maskToken('abcdefghijklmnopqr'), 'abcdef...opqr', '18 characters');
  assert.equal(maskToken(''), '***');
  // Code points: 18 emoji are 36 UTF-16 units, and no surrogate pair is split.
  assert.equal(maskToken('😀'.repeat(17)), '***');
  assert.equal(maskToken('😀'.repeat(18)), `${'😀'.repeat(6)}...${'😀'.repeat(4)}`);
});

test('maskToken drops control, zero-width and bidi characters before counting', () => {
  assert.equal(maskToken('ab\u200bcd'.repeat(5)), 'abcdab...abcd', '20 visible characters');
  assert.equal(maskToken('a\nb\x1b\u202ec\u2060'.repeat(5) + 'xy'), '***', '17 visible');
  assert.equal(maskToken('a\nb\x1b\u202ec\u2060'.repeat(5) + 'xyz'), 'abcabc...cxyz', '18 visible, none of the invisible ones kept');
  assert.equal(maskToken('\x00\x7f\x9f'.repeat(10)), '***');
});

test('maskValue masks a value holding a backslash whole (no half escape in the head)', () => {
  assert.equal(maskValue('abcde\\nfghijklmnopqrstu'), '***');
  assert.equal(maskValue('abcdefghijklmnopqrstu'), 'abcdef...rstu');
});

test('nonReusableMask labels a known prefix, the gateway\'s own included, else the plain sentinel', () => {
  assert.equal(SECRET_SENTINEL, '«redacted-secret»');
  assert.equal(nonReusableMask('ghp_0123456789abcdef'), '«redacted:ghp_…»');
  assert.equal(nonReusableMask('github_pat_11AAAA'), '«redacted:github_pat_…»');
  assert.equal(nonReusableMask('SG.abc.def'), '«redacted:SG…»', 'the literal up to the first metacharacter');
  assert.equal(nonReusableMask('hunter2hunter2'), '«redacted-secret»');
});

test('the file-read masker labels a cut-out value by Hermes\' prefixes only', () => {
  assert.equal(FILE_READ_MASKER.token('ATBBxyz'), '«redacted:ATBB…»', 'a whole token: every prefix');
  assert.equal(FILE_READ_MASKER.value('ATBBxyz'), '«redacted-secret»', 'a value: the gateway\'s prefix would label ordinary passwords');
  assert.equal(FILE_READ_MASKER.value('sk-live-thing'), '«redacted:sk-…»');
  assert.equal(FILE_READ_MASKER.full('ghp_x'), '«redacted:ghp_…»');
  assert.equal(OUTPUT_MASKER.full('anything at all, however long it is'), '***');
});

test('ALREADY_MASKED_RE knows this module\'s outputs and nothing longer', () => {
  for (const masked of ['***', 'abcdef...wxyz', '«redacted:ghp_…»', '«redacted-secret»', maskToken('x'.repeat(40))]) {
    assert.match(masked, ALREADY_MASKED_RE, masked);
  }
  for (const plain of ['****', 'abcde...wxyz', 'abc def...wxyz', ' ***', '«redacted:…»', '«redacted:a b…»']) {
    assert.doesNotMatch(plain, ALREADY_MASKED_RE, plain);
  }
});

test('REDACTION_MARKER_RE finds a sentinel inside text, not *** or a head/tail mask', () => {
  assert.match('token = «redacted:ghp_…» # copied', REDACTION_MARKER_RE);
  assert.match('x«redacted-secret»y', REDACTION_MARKER_RE);
  assert.doesNotMatch('password=*** key=abcdef...wxyz', REDACTION_MARKER_RE);
  assert.doesNotMatch(`«redacted:${'a'.repeat(33)}…»`, REDACTION_MARKER_RE);
});

test('maskUnlessMasked leaves a mask and masks anything else', () => {
  assert.equal(maskUnlessMasked('***'), '***');
  assert.equal(maskUnlessMasked('abcdef...wxyz'), 'abcdef...wxyz');
  assert.equal(maskUnlessMasked('abcdefghijklmnopqrstuvwxyz'), 'abcdef...wxyz');
  assert.equal(maskUnlessMasked('short'), '***');
  assert.equal(maskUnlessMasked('hunter2', FILE_READ_MASKER), '«redacted-secret»');
});

test('the masker of one call masks its own masks again, but keeps masks that were in the input', () => {
  const masker = outputMaskerForOneCall();
  const made = masker.token('sk-abcdefghijklmnopqrstuvwxyz');
  assert.equal(made, 'sk-abc...wxyz');
  assert.equal(masker.keeps(made), false, 'its own head/tail mask: a later pass masks it to ***');
  assert.equal(maskUnlessMasked(made, masker), '***');
  assert.equal(masker.keeps('ghp_ab...wxyz'), true, 'a mask it did not make');
  assert.equal(masker.keeps('not a mask'), false);
  const value = masker.value('abcdefghijklmnopqrstu');
  assert.equal(masker.keeps(value), false);
  assert.equal(masker.full('x'), '***');
});

test('a masker keeping the masks of an original keeps only those', () => {
  const masker = outputMaskerKeepingMasksOf('before: key=sk-abc...wxyz and ***');
  assert.equal(masker.keeps('sk-abc...wxyz'), true);
  assert.equal(masker.keeps('***'), true);
  assert.equal(masker.keeps('ghp_ab...wxyz'), false, 'a mask made since');
  assert.equal(masker.keeps('wxyz'), false, 'in the original, but not a mask');
  assert.equal(masker.token('abcdefghijklmnopqrstu'), 'abcdef...rstu');
});
