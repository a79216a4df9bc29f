import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact } from '../../shared/redact.js';
import { clientToken } from '../../shared/tokens.js';

// A credential handed out in a tool result survives that result's output redaction: a random
// draw that spells a secret's shape is drawn again.

/** A random source that returns these base64url draws in turn. */
function draws(...list: string[]): (size: number) => Buffer {
  return (size) => {
    const next = Buffer.from(list.shift()!, 'base64url');
    assert.equal(next.length, size, 'each draw is the size asked for');
    return next;
  };
}

test('a draw that output redaction would alter is drawn again (a JWT-shaped run inside a recovery token)', () => {
  // Draws seen from randomBytes(32): redaction masks their tails as a JWT (eyJ…).
  const masked = ['GsDNkU3HaSYBeyJp8W1EI5exFiPdpBsYObGxtRKVlvY', 'z_XR74Q8g_pHDp7m5lFzQTyeGYg1eyJm-6tZli0tEdc'];
  for (const d of masked) assert.notEqual(redact(`hjr_${d}`), `hjr_${d}`, `redaction alters hjr_${d}`);
  const plain = 'q7Ahb0mC3xv_TtZr1Lk9Wd2Pn4Yc6Qa8Zx0Vb1Nm2Lk';
  const token = clientToken('hjr_', 32, draws(...masked, plain));
  assert.equal(token, `hjr_${plain}`);
  assert.equal(redact(token), token);
  assert.equal(redact(JSON.stringify({ recovery_token: token })), JSON.stringify({ recovery_token: token }), 'also as a field of a JSON result');
});

test('an ordinary draw is used as it is: the prefix and the base64url of the bytes', () => {
  assert.equal(clientToken('hmcp_', 3, draws('AAAA')), 'hmcp_AAAA');
  assert.match(clientToken('hmcp_', 24), /^hmcp_[A-Za-z0-9_-]{32}$/);
});
