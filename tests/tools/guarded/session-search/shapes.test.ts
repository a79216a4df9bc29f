import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { prepareArgs, type SearchArgs, type SessionSearchChange } from '../../../../supervisor/tools/guarded/session-search/args.js';
import { runSessionSearch } from '../../../../supervisor/tools/guarded/session-search/shapes.js';
import { SessionStore, StoreError } from '../../../../supervisor/tools/guarded/session-search/store.js';
import { S_API, S_CLI, S_SUB, installStateDb, standardStateDb } from '../../../fixtures/hermes-home.js';
import { tempDirs } from '../../../helpers/temp.js';

// session_search's modes run over the database the pinned Hermes wrote; discover has its own test.

const temp = tempDirs();
let store: SessionStore;
const ids = () => standardStateDb().messages;

before(() => {
  store = SessionStore.open(installStateDb(temp.make('ssh-')));
});
after(() => {
  store.close();
  temp.removeAll();
});

function run(args: SearchArgs, changes: SessionSearchChange[] = [], budget = 50_000): Record<string, unknown> {
  return runSessionSearch(store, prepareArgs({ dbPath: '', args, budgetChars: budget, profile: 'work', changes }), budget);
}

function code(expected: string) {
  return (e: unknown) => e instanceof StoreError && e.code === expected;
}

describe('read', () => {
  test('the whole short session, its meta and count', () => {
    const out = run({ session_id: S_CLI });
    assert.equal(out.mode, 'read');
    assert.equal(out.message_count, 2);
    assert.equal(out.truncated, false);
    assert.equal('message' in out, false);
    assert.equal('link' in out, false);
    assert.deepEqual((out.session_meta as Record<string, unknown>).source, 'cli');
    assert.deepEqual((out.messages as Array<{ id: number }>).map((m) => m.id), ids()[S_CLI]);
  });

  test('with session links, the link names this profile', () => {
    assert.equal(run({ session_id: S_CLI }, ['session_search_links']).link, `@session:work/${S_CLI}`);
  });

  test('an unknown session is HERMES_SESSION_NOT_FOUND', () => {
    assert.throws(() => run({ session_id: 'nope' }), code('HERMES_SESSION_NOT_FOUND'));
  });
});

describe('scroll', () => {
  test('the window around the anchor, the anchor flagged; the hint with the guidance texts', () => {
    const [m1, m2] = ids()[S_API]!;
    const out = run({ session_id: S_API, around_message_id: m2!, window: 99 }, ['session_search_guidance_texts']);
    assert.equal(out.mode, 'scroll');
    assert.equal(out.window, 20, 'clamped');
    const messages = out.messages as Array<{ id: number; anchor?: boolean }>;
    assert.deepEqual(messages.map((m) => [m.id, m.anchor ?? false]), [[m1, false], [m2, true]]);
    assert.deepEqual([out.messages_before, out.messages_after], [1, 0]);
    assert.match(String(out.hint), /^Scroll forward: re-call with around_message_id/);
    assert.equal('hint' in run({ session_id: S_API, around_message_id: m2! }), false);
  });

  test("an anchor in a child of the session is rebound to the child, with a warning", () => {
    const [child] = ids()[S_SUB]!;
    const out = run({ session_id: S_API, around_message_id: child! });
    assert.equal(out.session_id, S_SUB);
    assert.equal(out.warning, `around_message_id ${child} lives in ${S_SUB} (child of ${S_API}); rebound transparently`);
  });

  test('an anchor of an unrelated session is HERMES_MESSAGE_NOT_FOUND', () => {
    assert.throws(() => run({ session_id: S_CLI, around_message_id: ids()[S_API]![0]! }), code('HERMES_MESSAGE_NOT_FOUND'));
    assert.throws(() => run({ session_id: 'nope', around_message_id: 1 }), code('HERMES_SESSION_NOT_FOUND'));
  });
});

describe('browse', () => {
  test('the visible sessions with their previews; the limit clamped to 1-10', () => {
    const out = run({});
    assert.equal(out.mode, 'browse');
    const results = out.results as Array<Record<string, unknown>>;
    assert.deepEqual(results.map((r) => r.session_id).sort(), [S_API, S_CLI].sort());
    const cli = results.find((r) => r.session_id === S_CLI)!;
    assert.deepEqual([cli.source, cli.message_count, cli.title], ['cli', 2, null]);
    assert.equal(cli.preview, 'How do I rotate the walrus certificates?');
    assert.equal(out.message, `Showing ${results.length} most recent sessions. Pass a query= to search, or session_id+around_message_id to scroll.`);
    assert.equal((run({ limit: 0 }).results as unknown[]).length, 1);
    assert.equal('link' in (run({}, ['session_search_links']).results as Array<Record<string, unknown>>)[0]!, true);
  });

  test('a blank query browses too', () => {
    assert.equal(run({ query: '   ' }).mode, 'browse');
  });
});
