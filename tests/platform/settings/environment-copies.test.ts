import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { test } from 'node:test';
import { BROWSER_ENV_KEYS, browserEnvironment, environmentSnapshot, HONCHO_ENV_KEYS, HONCHO_IDENTITY_ENV_KEYS, honchoEnvironment } from '../../../supervisor/platform/settings/environment-copies.js';

// The variables handed on as they are: only the listed ones, set and non-empty.

test('the Honcho copy: its listed variables that are set, HOME defaulting to the account home', () => {
  assert.deepEqual(HONCHO_ENV_KEYS, [...HONCHO_IDENTITY_ENV_KEYS, 'HOME']);
  assert.deepEqual(honchoEnvironment({}), { HOME: homedir() });
  assert.deepEqual(honchoEnvironment({ HOME: '/h', HONCHO_API_KEY: 'k', HONCHO_URL: '', HERMES_HONCHO_HOST: 'x', OTHER: 'o' }), { HOME: '/h', HONCHO_API_KEY: 'k', HERMES_HONCHO_HOST: 'x' });
});

test('the browser copy: its listed variables that are set and non-empty', () => {
  const all = Object.fromEntries(BROWSER_ENV_KEYS.map((k) => [k, `v-${k}`]));
  assert.deepEqual(browserEnvironment({ ...all, OTHER: 'o' }), all);
  assert.deepEqual(browserEnvironment({ CAMOFOX_URL: '', HERMES_ALLOW_PRIVATE_URLS: 'true' }), { HERMES_ALLOW_PRIVATE_URLS: 'true' });
});

test('the snapshot: defined entries only, frozen, a copy', () => {
  const env: NodeJS.ProcessEnv = { A: '1', B: undefined, C: '' };
  const snapshot = environmentSnapshot(env);
  assert.deepEqual(snapshot, { A: '1', C: '' });
  assert.ok(Object.isFrozen(snapshot));
  env.A = '2';
  assert.equal(snapshot.A, '1');
});
