import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SessionStore, StoreError } from '../../../../supervisor/tools/guarded/session-search/store.js';
import { S_API, S_CLI, S_SUB, installStateDb, standardStateDb } from '../../../fixtures/hermes-home.js';
import { tempDirs } from '../../../helpers/temp.js';

// SessionStore's reads over the database the pinned Hermes wrote (tests/fixtures/hermes-home.ts
// STANDARD_SESSIONS: a cli session, an api_server one and its subagent child).

const temp = tempDirs();
let store: SessionStore;
const ids = () => standardStateDb().messages;

before(() => {
  store = SessionStore.open(installStateDb(temp.make('sss-')));
});
after(() => {
  store.close();
  temp.removeAll();
});

test('opening a path with no database is STATE_DB_MISSING', () => {
  assert.throws(() => SessionStore.open(join(temp.make('sss-'), 'state.db')), (e: unknown) => e instanceof StoreError && e.code === 'STATE_DB_MISSING');
});

test('what the database holds', () => {
  assert.equal(store.schemaVersion, standardStateDb().schema_version);
  assert.equal(store.hasTrigramIndex, true);
  assert.equal(store.ftsUsable, true);
});

describe('sessions and lineage', () => {
  test('getSession', () => {
    const s = store.getSession(S_CLI)!;
    assert.deepEqual([s.id, s.source, s.model, s.parent_session_id, s.end_reason], [S_CLI, 'cli', 'demo-model', null, 'user_exit']);
    assert.equal(store.getSession(S_SUB)!.parent_session_id, S_API);
    assert.equal(store.getSession('nope'), undefined);
  });

  test('lineageRoot walks to the root; an unknown id is its own', () => {
    assert.equal(store.lineageRoot(S_SUB), S_API);
    assert.equal(store.lineageRoot(S_API), S_API);
    assert.equal(store.lineageRoot('nope'), 'nope');
  });

  test('owningSession, firstLiveMessage, sessionByTitle', () => {
    assert.equal(store.owningSession(ids()[S_SUB]![0]!), S_SUB);
    assert.equal(store.owningSession(999_999), undefined);
    assert.equal(store.firstLiveMessage(S_API), ids()[S_API]![0]);
    assert.equal(store.firstLiveMessage('nope'), undefined);
    assert.equal(store.sessionByTitle('no such title'), undefined);
  });

  test('compressionTip of a session never compressed is itself', () => {
    assert.equal(store.compressionTip(S_CLI), S_CLI);
  });
});

describe('messages', () => {
  test('messagesAround: the anchor and its neighbours, counted on each side', () => {
    const [m1, m2] = ids()[S_CLI]!;
    const around = store.messagesAround(S_CLI, m2!, 5);
    assert.deepEqual(around.window.map((m) => m.id), [m1, m2]);
    assert.deepEqual([around.messages_before, around.messages_after], [1, 0]);
    const narrow = store.messagesAround(S_CLI, m1!, 1);
    assert.deepEqual([narrow.window.map((m) => m.id), narrow.messages_before, narrow.messages_after], [[m1, m2], 0, 1]);
  });

  test("an anchor of another session is no window", () => {
    assert.deepEqual(store.messagesAround(S_CLI, ids()[S_API]![0]!, 5), { window: [], messages_before: 0, messages_after: 0 });
    assert.deepEqual(store.anchoredView(S_CLI, ids()[S_API]![0]!), { window: [], messages_before: 0, messages_after: 0, bookend_start: [], bookend_end: [] });
  });

  test('anchoredView: bookends only outside the window', () => {
    const [m1, m2] = ids()[S_CLI]!;
    const view = store.anchoredView(S_CLI, m2!, 0, 3);
    assert.deepEqual(view.window.map((m) => m.id), [m2]);
    assert.deepEqual(view.bookend_start.map((m) => m.id), [m1]);
    assert.deepEqual(view.bookend_end, []);
  });

  test('countMessages and headTail without duplicates', () => {
    const [m1, m2] = ids()[S_CLI]!;
    assert.equal(store.countMessages(S_CLI), 2);
    assert.equal(store.countMessages('nope'), 0);
    assert.deepEqual(store.headTail(S_CLI, 1, 1).map((m) => m.id), [m1, m2]);
    assert.deepEqual(store.headTail(S_CLI, 2, 2).map((m) => m.id), [m1, m2]);
    assert.deepEqual(store.headTail(S_CLI, 1, 0).map((m) => m.id), [m1]);
  });

  test('messageContent is the stored content', () => {
    assert.equal(store.messageContent(ids()[S_API]![1]!), 'The otter backup runs nightly at 02:00.');
    assert.equal(store.messageContent(999_999), undefined);
  });
});

test('search: FTS hits with their session, hidden sources left out', () => {
  const routes = { toolLikeScan: false, substringRetry: false, orRelaxed: false, cjkWildcards: false };
  const opts = { roles: ['user', 'assistant'], excludeSources: ['subagent', 'tool'], limit: 10, sort: undefined };
  const walrus = store.search('walrus', opts, routes);
  assert.equal(walrus.route, 'fts5');
  assert.deepEqual(walrus.hits.map((h) => h.session_id).sort(), [S_CLI, S_CLI]);
  assert.ok(walrus.hits.every((h) => h.source === 'cli' && h.snippet?.includes('>>>walrus<<<')), JSON.stringify(walrus.hits));
  const otter = store.search('otter', opts, routes);
  assert.deepEqual([...new Set(otter.hits.map((h) => h.session_id))], [S_API], 'the subagent session is hidden');
  assert.equal(store.search('otter', { ...opts, excludeSources: [] }, routes).hits.some((h) => h.session_id === S_SUB), true);
});

test('browse: root sessions of visible sources, with message counts and the first user message', () => {
  const rows = store.browse(['subagent', 'tool'], 10, 400);
  assert.deepEqual(rows.map((r) => r.id).sort(), [S_API, S_CLI].sort());
  const cli = rows.find((r) => r.id === S_CLI)!;
  assert.deepEqual([cli.source, cli.message_count, cli.preview_raw], ['cli', 2, 'How do I rotate the walrus certificates?']);
  assert.equal(store.browse(['subagent', 'tool'], 1, 400).length, 1);
  assert.equal(store.browse(['subagent', 'tool', 'cli'], 10, 400).map((r) => r.id).includes(S_CLI), false);
});
