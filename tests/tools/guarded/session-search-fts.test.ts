import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countCjk, quoteFtsTokens, sanitizeFtsQuery, trigramServesCjk } from '../../../supervisor/tools/guarded/session-search/fts.js';

// The FTS5 query port. Expected values are the output of Hermes' own
// `SessionDB._sanitize_fts5_query` (hermes_state.py, hermes-agent 0.19.0) on the same inputs, except
// '100% done', 'a/b/c' and 'k=v&x=y': the gateway also neutralises `@ / # & | ~ [ ] < > , ; ! ? $ = \ '`
// and a non-CJK `%`, which 0.19.0 hands to FTS5 as a syntax error (the intended divergence
// session-search-fts-punctuation in tests/fidelity/divergences.yaml). tests/fidelity/session-search.test.ts
// compares the whole tool with Hermes' own.

const HERMES_SANITIZER: Array<[string, string]> = [
  ['chat-send', '"chat-send"'],
  ['TODO: fix the bug', 'TODO  fix the bug'],
  ['"exact phrase" foo', '"exact phrase" foo'],
  ['hello AND', 'hello'],
  ['OR world', 'world'],
  ['***deploy*', 'deploy*'],
  ['my-app.config.ts', '"my-app.config.ts"'],
  ['P2.2 release', '"P2.2" release'],
  ['my_var value', '"my_var" value'],
  ['a "b c', 'a  b c'],
  ['100% done', '100  done'],
  ['数据%迁移', '数据%迁移'],
  ['C++ templates', 'C   templates'],
  ['error (timeout)', 'error  timeout'],
  ['module:auth', 'module auth'],
  ['NOT a bug', 'a bug'],
  ['deploy* OR build*', 'deploy* OR build*'],
  ['修改youer服务端', '修改youer服务端'],
  ['emoji 🚀-launch', 'emoji 🚀-launch'],
  ['naïve-café résumé', '"naïve-café" résumé'],
  ['x AND y OR z NOT w', 'x AND y OR z NOT w'],
  ['"unbalanced', 'unbalanced'],
  ['a/b/c', 'a b c'],
  ['k=v&x=y', 'k v x y'],
  ['日本語-テスト', '"日本語-テスト"'],
  ['über_straße.de', '"über_straße.de"'],
];

test('the sanitizer matches Hermes on every case', () => {
  for (const [input, expected] of HERMES_SANITIZER) assert.equal(sanitizeFtsQuery(input), expected, JSON.stringify(input));
  assert.equal(sanitizeFtsQuery('AND'), '');
  assert.equal(sanitizeFtsQuery('((( ) "'), '');
});

test('CJK routing: trigram needs 3+ CJK characters in every CJK token', () => {
  assert.equal(countCjk('数据库 abc 迁移'), 5);
  assert.equal(trigramServesCjk('数据库迁移'), true);
  assert.equal(trigramServesCjk('迁移'), false);
  assert.equal(trigramServesCjk('广西 OR 桂林'), false, 'four CJK characters, but two per token');
  assert.equal(trigramServesCjk('数据库 OR 迁移计划'), true);
});

test('token quoting keeps the boolean operators and escapes quotes', () => {
  assert.equal(quoteFtsTokens('数据库 OR say"hi'), '"数据库" OR "say""hi"');
});
