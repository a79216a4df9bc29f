import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolDefinition } from '../../../supervisor/core/tool-types.js';
import { Bm25Index, searchDocument, tokenize, type SearchDocument } from '../../../supervisor/core/catalog/search.js';

// BM25 over the catalog's documents. A tool whose every call is refused ranks below an otherwise equal tool that works, by its flag
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

test('tokenize lowercases, splits on anything but letters and digits, drops stop words and folds plurals', () => {
  assert.deepEqual(tokenize('Run the Tests in a Box_of-classes!'), ['run', 'test', 'box', 'class']);
  assert.deepEqual(tokenize('queries processes watches dishes status bus axis gas'), ['query', 'process', 'watch', 'dish', 'status', 'bus', 'axis', 'gas']);
  assert.deepEqual(tokenize('  '), []);
  assert.deepEqual(tokenize('I want to use it'), []);
});

test('searchDocument takes the name, description, parameters (descriptions where they are strings), keywords and flags of a tool', () => {
  const tool: ToolDefinition = {
    name: 'job_prepare',
    description: 'Prepare a job.',
    inputSchema: { type: 'object', properties: { command: { type: 'string', description: 'What to run.' }, cwd: { type: 'string' }, odd: { description: 42 } } },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    alwaysRefused: true,
    handler: async () => ({ structured: {} }),
  };
  assert.deepEqual(searchDocument(tool, ['build'], false), {
    name: 'job_prepare',
    description: 'Prepare a job.',
    parameters: [{ name: 'command', description: 'What to run.' }, { name: 'cwd' }, { name: 'odd' }],
    keywords: ['build'],
    alwaysRefused: true,
    configured: false,
  });
  const { alwaysRefused: _refused, ...working } = tool;
  const bare = searchDocument({ ...working, inputSchema: { type: 'object' } });
  assert.deepEqual(bare, { name: 'job_prepare', description: 'Prepare a job.', parameters: [], keywords: [], alwaysRefused: false, configured: true });
});

test('equal scores break by name; limit cuts the list; a query matching nothing finds nothing; the exact name is case- and space-insensitive', () => {
  const same = (name: string): SearchDocument => ({ name, description: 'Shared words here.', parameters: [], keywords: [], alwaysRefused: false, configured: true });
  const index = new Bm25Index([same('zeta'), same('alpha'), same('mid')]);
  assert.equal(index.size, 3);
  assert.deepEqual(index.search('shared words', 5), ['alpha', 'mid', 'zeta']);
  assert.deepEqual(index.search('shared words', 2), ['alpha', 'mid']);
  assert.deepEqual(index.search('nothing matches', 5), []);
  assert.deepEqual(index.search('  ZETA ', 1), ['zeta']);
});
