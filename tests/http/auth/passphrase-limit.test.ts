import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PassphraseLimit } from '../../../supervisor/http/auth/passphrase-limit.js';

// Wrong passphrases counted across every consent request: past maxFailures within the window,
// passphrase approval is off for the lockout.

function limit(): { limit: PassphraseLimit; advance: (ms: number) => void } {
  let t = 50_000;
  return { limit: new PassphraseLimit({ maxFailures: 3, windowMs: 10_000, lockoutMs: 60_000, now: () => t }), advance: (ms) => (t += ms) };
}

test('the maxFailures-th wrong passphrase within the window trips the limit, for lockoutMs', () => {
  const { limit: l, advance } = limit();
  assert.equal(l.disabledFor(), 0);
  assert.equal(l.fail(), false);
  advance(1000);
  assert.equal(l.fail(), false);
  assert.equal(l.disabledFor(), 0);
  advance(1000);
  assert.equal(l.fail(), true);
  assert.equal(l.disabledFor(), 60_000);
  advance(59_000);
  assert.equal(l.disabledFor(), 1000);
  advance(1000);
  assert.equal(l.disabledFor(), 0);
});

test('failures older than the window are forgotten; after tripping the count starts again', () => {
  const { limit: l, advance } = limit();
  l.fail();
  l.fail();
  advance(10_000);
  assert.equal(l.fail(), false, 'the first two fell out of the window');
  advance(1);
  assert.equal(l.fail(), false);
  assert.equal(l.fail(), true);
  advance(60_000);
  assert.equal(l.fail(), false, 'a new count after the lockout');
  assert.equal(l.fail(), false);
  assert.equal(l.fail(), true);
});
