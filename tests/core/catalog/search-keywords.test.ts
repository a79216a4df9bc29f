import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadSearchKeywords } from '../../../supervisor/core/catalog/search-keywords.js';
import { tempDirs } from '../../helpers/temp.js';

// tool_search's curated keywords: a map by tool name; the shipped file, and malformed ones refused.

const dirs = tempDirs();
after(() => dirs.removeAll());

function file(content: string): string {
  const path = join(dirs.make('keywords-'), 'search-keywords.json');
  writeFileSync(path, content);
  return path;
}

test('a keywords file becomes a map by tool name; $comment is not a tool', () => {
  const keywords = loadSearchKeywords(file(JSON.stringify({ $comment: 'x', job_prepare: ['build', 'test suite'], read_file: [] })));
  assert.deepEqual([...keywords.entries()], [['job_prepare', ['build', 'test suite']], ['read_file', []]]);
});

test('the shipped keywords name job_prepare for builds', () => {
  const keywords = loadSearchKeywords();
  assert.ok(keywords.size > 0);
  assert.ok(!keywords.has('$comment'));
  assert.ok(keywords.get('job_prepare')?.some((k) => /build/.test(k)), JSON.stringify(keywords.get('job_prepare')));
});

test('a malformed file fails startup: a bad tool name, an empty or over-long keyword, not a list, not JSON', () => {
  for (const bad of [{ 'Bad-Name': ['x'] }, { tool: [''] }, { tool: ['k'.repeat(65)] }, { tool: 'build' }]) {
    assert.throws(() => loadSearchKeywords(file(JSON.stringify(bad))), (e: unknown) => e instanceof Error && e.name === 'ValiError', JSON.stringify(bad));
  }
  assert.deepEqual([...loadSearchKeywords(file(JSON.stringify({ tool: ['k'.repeat(64)] }))).keys()], ['tool'], 'at 64 characters it passes');
  assert.throws(() => loadSearchKeywords(file('[')), SyntaxError);
});
