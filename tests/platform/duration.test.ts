import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDuration } from '../../supervisor/platform/duration.js';

test('a duration reads in hours, minutes and seconds, singular for one, the empty units left out', () => {
  assert.equal(formatDuration(5), '5 seconds');
  assert.equal(formatDuration(1), '1 second');
  assert.equal(formatDuration(900), '15 minutes');
  assert.equal(formatDuration(5400), '1 hour 30 minutes');
  assert.equal(formatDuration(3661), '1 hour 1 minute 1 second');
  assert.equal(formatDuration(7200), '2 hours');
});

test('zero, negative and fractional seconds: rounded to whole seconds, never below zero', () => {
  assert.equal(formatDuration(0), '0 seconds');
  assert.equal(formatDuration(-30), '0 seconds');
  assert.equal(formatDuration(0.4), '0 seconds');
  assert.equal(formatDuration(59.6), '1 minute');
});
