import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isoTimestamp } from '../../../../supervisor/tools/agent-tasks/status/index.js';

// hermes_status's timestamps: Hermes gives epoch seconds (a number or a numeric string), epoch
// milliseconds, or a date string; the tool answers ISO 8601 in UTC, or null.

test('epoch seconds, fractional seconds and milliseconds, as numbers or numeric strings', () => {
  assert.equal(isoTimestamp(1700000000), '2023-11-14T22:13:20.000Z');
  assert.equal(isoTimestamp(1700000000.5), '2023-11-14T22:13:20.500Z');
  assert.equal(isoTimestamp(' 1700000000.25 '), '2023-11-14T22:13:20.250Z');
  assert.equal(isoTimestamp(1700000000123), '2023-11-14T22:13:20.123Z', 'from 1e12 on: milliseconds');
  assert.equal(isoTimestamp('1700000000123'), '2023-11-14T22:13:20.123Z');
  assert.equal(isoTimestamp(0), '1970-01-01T00:00:00.000Z');
});

test('date strings through Date.parse', () => {
  assert.equal(isoTimestamp('2025-01-01T00:00:00Z'), '2025-01-01T00:00:00.000Z');
  assert.equal(isoTimestamp('2025-01-01T02:00:00+02:00'), '2025-01-01T00:00:00.000Z');
});

test('anything else is null: blanks, non-dates, non-finite and out-of-range numbers, other types', () => {
  for (const value of [undefined, null, '', '   ', 'yesterday', '12:00 on Friday', NaN, Infinity, 1e20, true, {}, []]) {
    assert.equal(isoTimestamp(value), null, String(value));
  }
});
