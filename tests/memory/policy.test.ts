import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGatewayError } from '../../shared/errors.js';
import { checkConclusion, decodeConclusion, encodeConclusion, temporaryPhrase } from '../../supervisor/memory/policy.js';

// The conclusion write policy on its own: durable kinds, secrets, temporary phrasing, length.

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    assert.ok(isGatewayError(e), String(e));
    return e.code;
  }
}

test('explicitly temporary phrasing is detected; durable project state is not', () => {
  for (const text of ['For now we use npm', 'Use the staging DB temporarily', 'Only for this session: skip lint', 'until tomorrow, deploys are frozen', 'Just this once, push to main', 'today only: no meetings']) {
    assert.ok(temporaryPhrase(text), text);
  }
  for (const text of ['The gateway currently listens on 3060', 'Ada prefers pnpm over npm', 'We decided to keep SQLite for job receipts']) {
    assert.equal(temporaryPhrase(text), undefined, text);
  }
});

test('the kind travels as a prefix and is parsed back; foreign conclusions have kind null', () => {
  assert.equal(encodeConclusion('decision', 'Use pnpm'), '[decision] Use pnpm');
  assert.deepEqual(decodeConclusion('[decision] Use pnpm'), { kind: 'decision', content: 'Use pnpm' });
  assert.deepEqual(decodeConclusion('Ada likes tea'), { kind: null, content: 'Ada likes tea' });
  assert.deepEqual(decodeConclusion('[mood] happy'), { kind: null, content: '[mood] happy' });
});

test('checkConclusion: missing kind, too long, secret, temporary each have their own stable code', () => {
  assert.equal(code(() => checkConclusion('Ada prefers pnpm', undefined, 100)), 'MEMORY_KIND_REQUIRED');
  assert.equal(code(() => checkConclusion('Ada prefers pnpm', 'mood', 100)), 'INVALID_ARGUMENTS');
  assert.equal(code(() => checkConclusion('x'.repeat(101), 'preference', 100)), 'MEMORY_CONCLUSION_TOO_LARGE');
  assert.equal(code(() => checkConclusion('The deploy key is ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'project_state', 1000)), 'MEMORY_CONCLUSION_SECRET');
  assert.equal(code(() => checkConclusion('OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234', 'project_state', 1000)), 'MEMORY_CONCLUSION_SECRET');
  assert.equal(code(() => checkConclusion('For now, use npm', 'decision', 1000)), 'MEMORY_CONCLUSION_TEMPORARY');
  assert.equal(code(() => checkConclusion('   ', 'decision', 1000)), 'INVALID_ARGUMENTS');
  assert.deepEqual(checkConclusion('  Ada prefers pnpm  ', 'preference', 100), { text: 'Ada prefers pnpm', kind: 'preference' });
});
