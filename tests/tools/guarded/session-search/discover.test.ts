import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prepareArgs, type SearchArgs, type SessionSearchChange } from '../../../../supervisor/tools/guarded/session-search/args.js';
import { discover } from '../../../../supervisor/tools/guarded/session-search/discover.js';
import { SessionStore } from '../../../../supervisor/tools/guarded/session-search/store.js';
import { S_API, S_CLI, installStateDb, standardStateDb } from '../../../fixtures/hermes-home.js';
import { tempDirs } from '../../../helpers/temp.js';

// Discover over the database the pinned Hermes wrote (tests/fixtures/hermes-home.ts STANDARD_SESSIONS).

const temp = tempDirs();
let store: SessionStore;

before(() => {
  store = SessionStore.open(installStateDb(temp.make('ssd-')));
});
after(() => {
  store.close();
  temp.removeAll();
});

function run(query: string, args: SearchArgs = {}, changes: SessionSearchChange[] = [], limit = 3, budget = 50_000): Record<string, unknown> {
  const call = prepareArgs({ dbPath: '', args: { query, ...args }, budgetChars: budget, profile: 'default', changes });
  return discover(store, query, call, limit, budget);
}

type Result = Record<string, unknown> & { messages: Array<{ id: number; anchor?: boolean }> };

test('a hit: its session, the matched message anchored in its window, the snippet marked', () => {
  const out = run('walrus');
  assert.deepEqual([out.success, out.mode, out.query, out.count, out.sessions_searched], [true, 'discover', 'walrus', 1, 1]);
  const [r] = out.results as Result[];
  assert.equal(r!.session_id, S_CLI);
  assert.equal(r!.source, 'cli');
  assert.equal(r!.model, 'demo-model');
  assert.ok(standardStateDb().messages[S_CLI]!.includes(r!.match_message_id as number));
  assert.match(String(r!.snippet), />>>walrus<<</);
  assert.deepEqual(r!.messages.filter((m) => m.anchor).map((m) => m.id), [r!.match_message_id]);
  assert.equal('detail' in r!, false);
  assert.equal('link' in r!, false);
});

test("a subagent's hit counts for its parent session, which is not repeated", () => {
  const out = run('otter');
  const results = out.results as Result[];
  assert.deepEqual(results.map((r) => r.session_id), [S_API]);
});

test('no match: the message of the followed Hermes', () => {
  assert.deepEqual(run('zebra'), { success: true, mode: 'discover', query: 'zebra', results: [], count: 0, message: 'No matching sessions found.' });
  const newer = run('zebra', {}, ['session_search_guidance_texts', 'session_search_adaptive_detail']);
  assert.match(String(newer.message), /^No matching sessions found\. FTS5 ANDs all terms by default/);
  assert.equal(newer.detail, 'adaptive');
});

test('Hermes 0.22: adaptive detail, links and the link hint; excluded sessions and their lineage left out', () => {
  const changes: SessionSearchChange[] = ['session_search_adaptive_detail', 'session_search_links', 'session_search_exclude_ids'];
  const out = run('otter OR walrus', {}, changes, 5);
  const results = out.results as Result[];
  assert.equal(results.length, 2);
  assert.equal(results[0]!.detail, 'full');
  assert.equal(results[1]!.detail, 'compact');
  assert.equal(results[0]!.link, `@session:default/${results[0]!.session_id}`);
  assert.match(String(out.link_hint), /^When referring the user to a session, write its `link` value verbatim/);
  const full = run('otter OR walrus', { detail: 'full' }, changes, 5);
  assert.deepEqual((full.results as Result[]).map((r) => r.detail), ['full', 'full']);
  const excluded = run('otter OR walrus', { exclude_session_ids: [S_API] }, changes, 5);
  assert.deepEqual((excluded.results as Result[]).map((r) => r.session_id), [S_CLI]);
});

test('the limit caps the sessions', () => {
  assert.equal((run('otter OR walrus', {}, [], 1).results as Result[]).length, 1);
});
