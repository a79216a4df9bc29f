import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGatewayError } from '../../../shared/errors.js';
import { checkConclusion, decodeConclusion, encodeConclusion, secretValueReason, temporaryPhrase } from '../../../supervisor/tools/memory/policy.js';

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

test('time-bounded phrasing is temporary: next hour, this week only, until Friday, reminders', () => {
  for (const text of [
    'For the next hour, deploy from staging',
    'Use the old runner for the next 2 weeks',
    'This week only: reviews go to Bob',
    'Only this sprint we skip the changelog',
    'Deploys are frozen until Friday',
    'Keep the feature flag on until next week',
    'Remind me tomorrow to update the README',
  ]) {
    assert.ok(temporaryPhrase(text), text);
    assert.equal(code(() => checkConclusion(text, 'decision', 1000)), 'MEMORY_CONCLUSION_TEMPORARY', text);
  }
  // Durable facts that merely mention time stay allowed.
  for (const text of ['Ada deploys on Mondays, never on Fridays', 'For the next release we target Node 22', 'Keep v1 until the migration lands', 'Weekly reports go out on Friday']) {
    assert.equal(temporaryPhrase(text), undefined, text);
  }
});

test('a credential word followed by a value, or a long hex/base64 run, is a secret; prose about credentials is not', () => {
  for (const text of [
    'my password is hunter2',
    'the api_key is 0123456789abcdef0123456789abcdef',
    'AWS secret key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'The API key is sk_live_abc123',
    'GitHub token: x1y2z3w4v5',
    'passwd = p@ssword',
    'the client secret is "open sesame"',
    'The signing key is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  ]) {
    assert.ok(secretValueReason(text), text);
    assert.equal(code(() => checkConclusion(text, 'project_state', 1000)), 'MEMORY_CONCLUSION_SECRET', text);
  }
  // Decision: only a value is refused, never the topic. These stay storable. (An assignment shape such
  // as "Password: required" is still refused by the shared redactor, shared/redact, which is stricter.)
  for (const text of [
    'We decided to rotate the api key yearly',
    'The api key is rotated yearly',
    'The password is stored in the team vault',
    'Access tokens are valid for 15 minutes',
    'Ada prefers token-based auth over sessions',
    'The api key is env-driven',
    'We pinned commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a for the release',
    'Sources live in supervisor/memory/tools and tests/memory/tools',
  ]) {
    assert.equal(secretValueReason(text), undefined, text);
    assert.equal(code(() => checkConclusion(text, 'decision', 1000)), undefined, text);
  }
});
