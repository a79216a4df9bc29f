import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Bm25Index, type SearchDocument } from '../../../supervisor/core/catalog/search.js';

// A tool whose every call is refused ranks below an otherwise equal tool that works, by its flag
// alone (no query is special-cased); its exact name still ranks it first.

const doc = (name: string, alwaysRefused: boolean, configured = true): SearchDocument => ({
  name,
  description: 'Run a long build or test suite in the background.',
  parameters: [{ name: 'command', description: 'The command to run.' }],
  keywords: [],
  alwaysRefused,
  configured,
});

test('alwaysRefused demotes a tool below an equal working one, but not below its exact name', () => {
  // Names chosen so the name tie-break alone would put the refused tool first.
  const index = new Bm25Index([doc('aa_refused', true), doc('zz_working', false), { ...doc('other', false), description: 'Unrelated.' }]);
  assert.deepEqual(index.search('long build in the background', 3), ['zz_working', 'aa_refused']);
  assert.equal(index.search('aa_refused', 1)[0], 'aa_refused');
});

test('a tool whose backend is not configured ranks below every configured match, however much better it matches, but not below its exact name', () => {
  const strong = doc('aa_unconfigured', false, false);
  const weak: SearchDocument = { ...doc('zz_weak', false), description: 'Background.', parameters: [] };
  const index = new Bm25Index([strong, weak, { ...doc('other', false), description: 'Unrelated.', parameters: [] }]);
  assert.deepEqual(index.search('long build in the background', 3), ['zz_weak', 'aa_unconfigured']);
  assert.equal(index.search('aa_unconfigured', 1)[0], 'aa_unconfigured');
});

test('curated keywords and parameter descriptions are searched', () => {
  const index = new Bm25Index([
    { name: 'alpha', description: 'Does one thing.', parameters: [{ name: 'x', description: 'A frobnication level.' }], keywords: [], alwaysRefused: false, configured: true },
    { name: 'beta', description: 'Does another thing.', parameters: [], keywords: ['grep'], alwaysRefused: false, configured: true },
  ]);
  assert.deepEqual(index.search('frobnication', 2), ['alpha']);
  assert.deepEqual(index.search('grep', 2), ['beta']);
  assert.deepEqual(index.search('greps', 2), ['beta'], 'plurals meet their singular');
});
