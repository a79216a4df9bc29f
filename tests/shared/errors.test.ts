import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, GatewayError, isGatewayError } from '../../shared/errors.js';

// The stable error codes every tool answers with, and the one error class that carries them.

test('every error code is its own name, and no two names share a value', () => {
  const entries = Object.entries(ErrorCode);
  assert.ok(entries.length > 100);
  for (const [name, value] of entries) assert.equal(value, name);
  assert.equal(new Set(Object.values(ErrorCode)).size, entries.length);
});

test('every error code is upper snake case (clients match on them)', () => {
  for (const code of Object.values(ErrorCode)) assert.match(code, /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/, code);
});

test('GatewayError carries its code, message and details, and is an Error named GatewayError', () => {
  const details = { path: '/srv/x', limit: 3 };
  const e = new GatewayError(ErrorCode.FILE_TOO_LARGE, 'too large: 5 bytes over', details);
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'GatewayError');
  assert.equal(e.code, 'FILE_TOO_LARGE');
  assert.equal(e.message, 'too large: 5 bytes over');
  assert.equal(e.details, details);
  assert.match(String(e), /^GatewayError: too large: 5 bytes over$/);
  assert.equal(new GatewayError(ErrorCode.BUSY, 'busy').details, undefined);
});

test('isGatewayError tells a GatewayError from any other thrown value', () => {
  assert.equal(isGatewayError(new GatewayError(ErrorCode.INTERNAL_ERROR, 'x')), true);
  class Sub extends GatewayError {}
  assert.equal(isGatewayError(new Sub(ErrorCode.CANCELLED, 'x')), true);
  const lookalike = Object.assign(new Error('x'), { name: 'GatewayError', code: 'BUSY' });
  assert.equal(isGatewayError(lookalike), false);
  assert.equal(isGatewayError({ code: 'BUSY', message: 'x' }), false);
  assert.equal(isGatewayError(undefined), false);
  assert.equal(isGatewayError('GatewayError'), false);
});
