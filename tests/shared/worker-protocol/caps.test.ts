import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultMaxFrameBytes, FRAME_CAP_VAR, maxFrameBytes, takeFrameCap } from '../../../shared/worker-protocol/caps.js';
import { defaultLimits } from '../../../shared/limits.js';

// The frame cap of a supervisor <-> worker channel: four frame bytes per transport byte.

test('maxFrameBytes is four times the transport cap, and the default follows the default limits', () => {
  assert.equal(maxFrameBytes(1000), 4000);
  assert.equal(maxFrameBytes(1), 4);
  assert.equal(defaultMaxFrameBytes(), 4 * defaultLimits().workerTransportMaxBytes);
  assert.equal(defaultMaxFrameBytes(), 4_194_304);
});

test('takeFrameCap reads the supervisor\'s cap and removes the variable from the environment', () => {
  const env: NodeJS.ProcessEnv = { [FRAME_CAP_VAR]: '12345', PATH: '/bin' };
  assert.equal(takeFrameCap(env), 12345);
  assert.deepEqual(env, { PATH: '/bin' });
  assert.equal(FRAME_CAP_VAR, 'HERMES_MCP_MAX_FRAME_BYTES');
});

test('takeFrameCap falls back to the default for a missing or unusable value, still removing it', () => {
  for (const value of [undefined, '', '0', '-5', '1.5', 'lots', '1e20']) {
    const env: NodeJS.ProcessEnv = value === undefined ? {} : { [FRAME_CAP_VAR]: value };
    assert.equal(takeFrameCap(env), defaultMaxFrameBytes(), String(value));
    assert.equal(FRAME_CAP_VAR in env, false);
  }
});
