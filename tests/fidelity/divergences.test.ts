import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { listedDivergences, withDifferences } from '../../scripts/differences-from-hermes.js';
import { README_PATH } from '../helpers/readme.js';
import { MIN_CASES } from './harness.js';

// The intended divergences are one data file; the README's "Differences from Hermes" is made from
// it, so the two cannot drift apart.

test('README "Differences from Hermes" lists exactly the divergences in tests/fidelity/divergences.yaml', () => {
  const readme = readFileSync(README_PATH, 'utf8');
  assert.equal(readme, withDifferences(readme, listedDivergences()), 'the README is out of date: run npm run docs:differences');
});

test('every divergence names a fidelity surface, a reason and a summary', () => {
  for (const d of listedDivergences()) assert.ok(d.surface in MIN_CASES, `${d.id}: unknown surface ${d.surface}`);
});
