import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DIFFERENCES_PAGE, listedDivergences, withDifferences } from '../../scripts/differences-from-hermes.js';
import { MIN_CASES } from './harness.js';

// The intended divergences are data (one file per surface); docs/differences-from-hermes.md is made from them, so
// the two cannot drift apart.

test('docs/differences-from-hermes.md lists exactly the divergences in tests/fidelity/divergences/', () => {
  const page = readFileSync(DIFFERENCES_PAGE, 'utf8');
  assert.equal(page, withDifferences(page, listedDivergences()), 'docs/differences-from-hermes.md is out of date: run npm run docs:differences');
});

test('every divergence names a fidelity surface, a reason and a summary', () => {
  for (const d of listedDivergences()) assert.ok(d.surface in MIN_CASES, `${d.id}: unknown surface ${d.surface}`);
});
