import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import { follows } from '../../../../supervisor/tools/files/common/follows.js';

test('no release named: the newest Hermes, which has every change', () => {
  assert.equal(follows({}, 'readFileLinesAsCatN'), true);
});

test('a release has a change from its `since` on', () => {
  // readFileDefaultLimit2000 arrived in 0.21.2.
  assert.equal(follows({ release: new HermesRelease('0.21.1') }, 'readFileDefaultLimit2000'), false);
  assert.equal(follows({ release: new HermesRelease('0.21.2') }, 'readFileDefaultLimit2000'), true);
  assert.equal(follows({ release: new HermesRelease('0.22.2') }, 'readFileDefaultLimit2000'), true);
});

test('a release of unknown version follows the newest', () => {
  assert.equal(follows({ release: new HermesRelease(undefined) }, 'readFileNotFoundField'), true);
});
