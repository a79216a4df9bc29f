import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import { NEWEST_KNOWN_SCHEMA_VERSION, OLDEST_SUPPORTED_SCHEMA_VERSION } from '../../../supervisor/tools/guarded/session-search/store.js';
import { ERAS, connect, makeHermesHome, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { hermes } from '../../helpers/hermes.js';
import { S_API, S_CLI, S_SUB, delegationStore, holdHermesWrite, installStateDb, standardStateDb, writeSessions, type MessageSpec } from '../../fixtures/hermes-home.js';

// session_search end to end over real MCP, against state.db files the pinned Hermes wrote itself
// (hermes_state.SessionDB through tests/hermes/drivers/session_db.py): its schema (22 for
// hermes-agent 0.19.0, 31 for Hermes 0.22), triggers, FTS tables and content encoding. The gateway
// follows the pinned Hermes (HERMES_MCP_HERMES_VERSION), so each pin checks its own Hermes'
// answers. The standard database is built once per file and only ever copied.

/** The gateway answers as the pinned Hermes does. */
const FOLLOW_PIN = { HERMES_MCP_HERMES_VERSION: hermes().version };
const release = new HermesRelease(hermes().version);

const FIXTURE = standardStateDb().path;
/** Message ids of the standard sessions: S_CLI walrus [1, 2], S_API otter [3, 4], S_SUB subagent [5]. */
const M = standardStateDb().messages;

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** A throwaway HERMES_HOME (SOUL.md and friends) holding a private copy of the standard database. */
function homeWithFixture(): { home: string; db: string } {
  const home = makeHermesHome();
  const db = join(home, 'state.db');
  copyFileSync(FIXTURE, db);
  chmodSync(db, 0o600);
  return { home, db };
}

type Result = Awaited<ReturnType<typeof viaBridge>>;
type Msg = { id: number; role: string; content: string | null; anchor?: boolean; content_truncated?: boolean };

function ok(r: Result): Record<string, unknown> {
  assert.equal(r.isError, false, JSON.stringify(r.data));
  assert.equal(r.data.success, true);
  // That results are historical context is the tool description's to say, as in Hermes.
  assert.equal(r.data.note, undefined);
  return r.data;
}

function failsWith(r: Result, code: string): string {
  assert.equal(r.isError, true, `expected ${code}, got ${JSON.stringify(r.data)}`);
  assert.equal(r.data.error, code, JSON.stringify(r.data));
  return String(r.data.message);
}

const ids = (messages: unknown) => (messages as Msg[]).map((m) => m.id);

/** The journal mode state.db's header records (bytes 18-19: 2 for WAL, 1 for a rollback journal). */
function journalMode(path: string): 'wal' | 'rollback' {
  const header = readFileSync(path).subarray(18, 20);
  return header[0] === 2 && header[1] === 2 ? 'wal' : 'rollback';
}

describe('session_search: the four shapes over a database Hermes wrote, Hermes defaults', () => {
  let gw: TestGateway;
  let home: string;
  let db: string;
  let fixtureHash: string;
  let copyHash: string;
  before(async () => {
    fixtureHash = sha256(FIXTURE);
    ({ home, db } = homeWithFixture());
    copyHash = sha256(db);
    gw = await startTestGateway({ home, env: FOLLOW_PIN });
  });
  after(async () => {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  });

  test("the catalogue lists session_search: read-only, the pinned Hermes' parameters, no profile override", async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    const found = await client.callTool({ name: 'tool_search', arguments: { queries: ['session_search'] } });
    assert.match(JSON.stringify(found.structuredContent), /session_search/);
    const described = await client.callTool({ name: 'tool_describe', arguments: { names: ['session_search'] } });
    const entry = (described.structuredContent as { tools: Record<string, { description: string; parameters: Record<string, unknown>; source: string; annotations: Record<string, unknown> }> })
      .tools.session_search!;
    assert.equal(entry.source, 'guarded');
    const newer = [
      ...(release.has('session_search_adaptive_detail') ? ['detail'] : []),
      ...(release.has('session_search_time_bounds') ? ['after', 'before'] : []),
      ...(release.has('session_search_exclude_ids') ? ['exclude_session_ids'] : []),
    ];
    assert.deepEqual(Object.keys(entry.parameters.properties as object).sort(), ['around_message_id', 'limit', 'query', 'role_filter', 'session_id', 'sort', 'window', ...newer].sort());
    assert.equal(entry.parameters.additionalProperties, false);
    assert.equal((entry.parameters as { required?: unknown }).required, undefined, 'no required parameters: the mode is inferred');
    assert.equal(entry.annotations.readOnlyHint, true);
    assert.equal(entry.annotations.destructiveHint, false);
    assert.match(entry.description, /historical/i);
    assert.doesNotMatch(JSON.stringify(entry.parameters), /"profile"/);
    await client.close();
  });

  for (const era of ERAS) {
    test(`${era}: discover with defaults finds the otter session, hides the subagent child, anchors the match`, async () => {
      const client = await connect(gw.mcpUrl, era);
      const data = ok(await viaBridge(client, 'session_search', { query: 'otter' }));
      assert.equal(data.mode, 'discover');
      assert.equal(data.query, 'otter');
      assert.equal(data.count, 1, 'the subagent session is hidden, so only one session matches');
      assert.equal(data.sessions_searched, 1);
      const [hit] = data.results as Array<Record<string, unknown>>;
      assert.equal(hit!.session_id, S_API);
      assert.equal(hit!.source, 'api_server');
      assert.equal(hit!.model, 'demo-model');
      assert.equal(hit!.title, null);
      assert.match(String(hit!.when), /^[A-Z][a-z]+ \d{2}, \d{4} at \d{2}:\d{2} [AP]M$/);
      assert.ok(M[S_API]!.includes(hit!.match_message_id as number));
      assert.match(String(hit!.snippet), />>>otter<<</);
      assert.deepEqual(ids(hit!.messages), M[S_API], '±5 user/assistant messages around the match');
      const anchored = (hit!.messages as Msg[]).filter((m) => m.anchor);
      assert.deepEqual(ids(anchored), [hit!.match_message_id]);
      assert.deepEqual(hit!.bookend_start, []);
      assert.deepEqual(hit!.bookend_end, []);
      assert.equal(typeof hit!.messages_before, 'number');
      assert.equal(typeof hit!.messages_after, 'number');
      assert.equal(hit!.parent_session_id, undefined);
      await client.close();
    });

    test(`${era}: browse lists root sessions, most recently active first, subagents hidden`, async () => {
      const client = await connect(gw.mcpUrl, era);
      const data = ok(await viaBridge(client, 'session_search', {}));
      assert.equal(data.mode, 'browse');
      const results = data.results as Array<Record<string, unknown>>;
      assert.deepEqual(
        results.map((r) => r.session_id),
        [S_API, S_CLI],
      );
      assert.equal(data.count, 2);
      const link = release.has('session_search_links') ? ['link'] : [];
      assert.deepEqual(Object.keys(results[0]!), ['session_id', ...link, 'title', 'source', 'started_at', 'last_active', 'message_count', 'preview']);
      if (link.length > 0) assert.equal(results[0]!.link, `@session:default/${S_API}`);
      assert.equal(results[0]!.preview, 'Plan the otter backup window');
      assert.equal(results[1]!.message_count, 2);
      assert.match(String(data.message), /most recent sessions/);
      await client.close();
    });
  }

  test('read: a whole small session, untruncated, with its metadata', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const data = ok(await viaBridge(client, 'session_search', { session_id: S_CLI }));
    assert.equal(data.mode, 'read');
    assert.equal(data.session_id, S_CLI);
    assert.equal(data.message_count, 2);
    assert.equal(data.truncated, false);
    assert.deepEqual(ids(data.messages), M[S_CLI]);
    assert.equal((data.messages as Msg[])[0]!.content, 'How do I rotate the walrus certificates?');
    assert.deepEqual(Object.keys(data.session_meta as object), ['when', 'source', 'model', 'title']);
    assert.equal((data.session_meta as Record<string, unknown>).source, 'cli');
    // A session link of this (default) profile resolves to the same session.
    const linked = ok(await viaBridge(client, 'session_search', { session_id: `@session:default/${S_CLI}` }));
    assert.equal(linked.session_id, S_CLI);
    await client.close();
  });

  test('scroll: default window 5 around an anchor; an anchor in a child session is rebound with a warning', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    const [first, second] = M[S_API]!;
    const data = ok(await viaBridge(client, 'session_search', { session_id: S_API, around_message_id: second }));
    assert.equal(data.mode, 'scroll');
    assert.equal(data.window, 5);
    assert.equal(data.around_message_id, second);
    assert.deepEqual(ids(data.messages), [first, second]);
    assert.deepEqual(ids((data.messages as Msg[]).filter((m) => m.anchor)), [second]);
    assert.equal(data.messages_before, 1);
    assert.equal(data.messages_after, 0);
    const clamped = ok(await viaBridge(client, 'session_search', { session_id: S_API, around_message_id: second, window: 500 }));
    assert.equal(clamped.window, 20, 'window is clamped to [1, 20] like Hermes');
    const rebound = ok(await viaBridge(client, 'session_search', { session_id: S_API, around_message_id: M[S_SUB]![0] }));
    assert.equal(rebound.session_id, S_SUB);
    assert.match(String(rebound.warning), /rebound/);
    await client.close();
  });

  test('bad input and unknown ids are stable errors', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    assert.match(failsWith(await viaBridge(client, 'session_search', { query: 'otter', profile: 'work' }), 'INVALID_ARGUMENTS'), /unknown property "profile"/);
    assert.match(failsWith(await viaBridge(client, 'session_search', { query: 'x'.repeat(2049) }), 'INVALID_ARGUMENTS'), /2048/);
    // "5" is read as 5, as Hermes' dispatch (coerce_tool_args) reads it; a limit no number can be read from is refused.
    assert.equal(ok(await viaBridge(client, 'session_search', { query: 'otter', limit: '5' })).success, true);
    failsWith(await viaBridge(client, 'session_search', { query: 'otter', limit: 'five' }), 'INVALID_ARGUMENTS');
    failsWith(await viaBridge(client, 'session_search', { query: 'otter', sort: 'sideways' }), 'INVALID_ARGUMENTS');
    failsWith(await viaBridge(client, 'session_search', { session_id: 's'.repeat(513) }), 'INVALID_ARGUMENTS');
    assert.match(failsWith(await viaBridge(client, 'session_search', { session_id: `work/${S_CLI}` }), 'INVALID_ARGUMENTS'), /cross-profile/);
    assert.match(failsWith(await viaBridge(client, 'session_search', { session_id: 'nope' }), 'HERMES_SESSION_NOT_FOUND'), /nope/);
    failsWith(await viaBridge(client, 'session_search', { session_id: 'nope', around_message_id: 1 }), 'HERMES_SESSION_NOT_FOUND');
    failsWith(await viaBridge(client, 'session_search', { session_id: S_CLI, around_message_id: M[S_API]![0] }), 'HERMES_MESSAGE_NOT_FOUND');
    // FTS5 syntax the sanitizer cannot rescue answers "no results", as Hermes does, never an error.
    const odd = ok(await viaBridge(client, 'session_search', { query: 'AND OR NOT ((( "' }));
    assert.equal(odd.count, 0);
    await client.close();
  });

  test('the database is never written: content hash, schema version and user_version unchanged; no WAL frames', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    for (const args of [{ query: 'walrus' }, {}, { session_id: S_CLI }, { session_id: S_API, around_message_id: M[S_API]![0] }, { query: '数据库迁移' }, { query: '迁移' }]) {
      ok(await viaBridge(client, 'session_search', args));
    }
    await client.close();
    assert.equal(sha256(db), copyHash, 'state.db bytes are identical after searching');
    assert.equal(sha256(FIXTURE), fixtureHash, 'the shared fixture is untouched');
    const check = new Database(db, { readonly: true, fileMustExist: true });
    assert.equal(check.pragma('user_version', { simple: true }), 0);
    const version = (check.prepare('SELECT version FROM schema_version').get() as { version: number }).version;
    assert.equal(version, standardStateDb().schema_version);
    assert.equal(version, standardStateDb().code_schema_version, "the schema of the pinned Hermes' own code (22 for 0.19.0, 31 for 0.22)");
    assert.ok(version >= 22 && version <= NEWEST_KNOWN_SCHEMA_VERSION, `schema ${version}`);
    check.close();
    if (journalMode(db) === 'wal') {
      // A WAL reader may need SQLite's -wal/-shm sidecars; it never writes WAL frames, and sidecars it
      // caused to exist are no more accessible than state.db itself.
      if (existsSync(`${db}-wal`)) assert.equal(statSync(`${db}-wal`).size, 0);
      for (const sidecar of [`${db}-wal`, `${db}-shm`]) {
        if (existsSync(sidecar)) assert.equal(statSync(sidecar).mode & 0o077, 0, `${sidecar} is private like state.db`);
      }
    } else {
      // A rollback-journal database (Hermes 0.22 where the linked SQLite has the WAL-reset bug): a
      // reader makes no sidecar at all, and leaves no journal behind.
      for (const sidecar of [`${db}-wal`, `${db}-shm`, `${db}-journal`]) assert.ok(!existsSync(sidecar), `no ${sidecar}`);
    }
  });
});

describe('session_search: sessions Hermes wrote (CJK, lineage, ranking, redaction, size, rewind, compaction, multimodal)', () => {
  let gw: TestGateway;
  let home: string;
  let db: string;
  const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
  let middleId = 0;
  let written: Record<string, number[]>;
  before(async () => {
    ({ home, db } = homeWithFixture());
    const user = (content: MessageSpec['content']): MessageSpec => ({ role: 'user', content });
    const words = Array.from({ length: 38 }, (_, i) => `w${i}`).join(' ');
    // By hand: WAL, the mode Hermes uses where its SQLite allows (0.19.0 always; Hermes 0.22 only on
    // a SQLite without the WAL-reset bug, which the newest pin's Python does not link, so it writes a
    // rollback journal there). Hermes 0.22 keeps a database that is already WAL in WAL
    // (hermes_state_wal `_apply_delete_for_wal_reset_bug`), so the writer test below is a WAL one on
    // every pin.
    const wal = new Database(db);
    wal.pragma('journal_mode = WAL');
    wal.close();
    // Written in this order by SessionDB, on Hermes' clock: each session starts after the last.
    written = writeSessions(home, [
      { id: '20260910_080000_cjk001', messages: [user('我们讨论了数据库迁移计划，然后部署到生产环境。'), { role: 'assistant', content: '好的，先备份再迁移。' }] },
      // A long session: bookends, the read head/tail cut.
      {
        id: '20260911_080000_long01',
        title: 'Long planning session',
        messages: Array.from({ length: 40 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: i === 20 ? 'the flamingo migration is decided' : `planning step ${i}` })),
      },
      // Cron outranks on BM25 but is demoted below interactive sessions.
      { id: '20260912_080000_cron01', source: 'cron', messages: [{ role: 'assistant', content: 'zebra zebra zebra zebra report' }] },
      { id: '20260912_090000_inter1', messages: [user('a long note that mentions a zebra once among many other words here')] },
      // A compression lineage: root ended by compression, child continues; both mention pelican.
      { id: '20260913_080000_root01', messages: [user('pelican first mention')], end_reason: 'compression' },
      { id: '20260913_090000_child1', parent_session_id: '20260913_080000_root01', messages: [user('pelican pelican pelican again')] },
      // Sort: the same word at two times.
      { id: '20260914_080000_heron1', messages: [user('heron sighting early')] },
      { id: '20260915_080000_heron2', source: 'telegram', messages: [user('heron sighting late')] },
      // A secret in a message, a tool result, and a secret the FTS5 snippet window (40 tokens
      // before the match) starts inside, after its `ghp_` prefix.
      {
        id: '20260916_080000_secret',
        messages: [user(`my token is ${token} for the narwhal deploy`), { role: 'tool', content: 'narwhal build log: ok', tool_name: 'terminal', tool_call_id: 'call_1' }, user(`${token} ${words} snippetcut`)],
      },
      // Huge messages.
      { id: '20260917_080000_huge01', messages: [user(`capybara ${'lorem ipsum dolor '.repeat(12_000)}`), { role: 'assistant', content: `capybara reply ${'sit amet '.repeat(12_000)}` }] },
      // /rewind took the marmot turn back (active=0, compacted=0): hidden, as in Hermes' search.
      { id: '20260918_080000_rewind', messages: [user('keep the puffin plan'), user('the marmot turn taken back')], rewind_to: 1 },
      // In-place compaction (archive_and_compact): the archived kiwi turns stay searchable history.
      { id: '20260919_080000_compac', messages: [user('the kiwi migration plan'), { role: 'assistant', content: 'kiwi steps one to three' }], compact: [user('Summary of the earlier turns')] },
      // Multimodal content: Hermes stores the list of parts as "\0json:" + JSON.
      { id: '20260920_080000_multim', messages: [user([{ type: 'text', text: 'what bird is this ibis photo' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }]), { role: 'assistant', content: 'A glossy ibis.' }] },
    ]).messages;
    middleId = written['20260911_080000_long01']![20]!;
    gw = await startTestGateway({ home, env: FOLLOW_PIN });
  });
  after(async () => {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('a CJK query of 3+ characters goes through messages_fts_trigram; a 2-character one through the substring scan', async () => {
    // The unicode61 index cannot find a phrase inside an unsegmented CJK run: only trigram can.
    const check = new Database(db, { readonly: true, fileMustExist: true });
    assert.equal((check.prepare(`SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH '"数据库迁移"'`).get() as { n: number }).n, 0);
    check.close();
    const client = await connect(gw.mcpUrl, 'modern');
    const data = ok(await viaBridge(client, 'session_search', { query: '数据库迁移' }));
    assert.equal(data.count, 1);
    const [hit] = data.results as Array<Record<string, unknown>>;
    assert.equal(hit!.session_id, '20260910_080000_cjk001');
    assert.match(String(hit!.snippet), />>>数据库迁移<<</, 'an FTS5 snippet with markers: the trigram index served it');
    const short = ok(await viaBridge(client, 'session_search', { query: '迁移' }));
    assert.equal(short.count, 1);
    const [shortHit] = short.results as Array<Record<string, unknown>>;
    assert.match(String(shortHit!.snippet), /迁移/);
    assert.doesNotMatch(String(shortHit!.snippet), />>>/, 'the LIKE route has no FTS markers');
    await client.close();
  });

  test('discover: ±5 window and 3 bookends in a long session; read cuts to first 20 + last 10', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    const data = ok(await viaBridge(client, 'session_search', { query: 'flamingo' }));
    const [hit] = data.results as Array<Record<string, unknown>>;
    assert.equal(hit!.match_message_id, middleId);
    assert.equal(hit!.title, 'Long planning session');
    assert.deepEqual(ids(hit!.messages), Array.from({ length: 11 }, (_, i) => middleId - 5 + i));
    assert.equal(hit!.messages_before, 5);
    assert.equal(hit!.messages_after, 5);
    assert.deepEqual(ids(hit!.bookend_start), [middleId - 20, middleId - 19, middleId - 18]);
    assert.deepEqual(ids(hit!.bookend_end), [middleId + 17, middleId + 18, middleId + 19]);
    const read = ok(await viaBridge(client, 'session_search', { session_id: '20260911_080000_long01' }));
    assert.equal(read.message_count, 40);
    assert.equal(read.truncated, true);
    assert.equal((read.messages as Msg[]).length, 30);
    assert.deepEqual(ids(read.messages).slice(18, 22), [middleId - 2, middleId - 1, middleId + 10, middleId + 11]);
    assert.match(String(read.message), /first 20 \+ last 10/);
    await client.close();
  });

  test('ranking: cron is demoted below interactive sessions; lineage dedups a compression chain; sort biases by time', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const zebra = ok(await viaBridge(client, 'session_search', { query: 'zebra', limit: 5 }));
    assert.deepEqual(
      (zebra.results as Array<Record<string, unknown>>).map((r) => r.source),
      ['cli', 'cron'],
    );
    const pelican = ok(await viaBridge(client, 'session_search', { query: 'pelican' }));
    assert.equal(pelican.count, 1, 'one lineage, one result');
    const [p] = pelican.results as Array<Record<string, unknown>>;
    assert.equal(p!.session_id, '20260913_090000_child1');
    assert.equal(p!.parent_session_id, '20260913_080000_root01');
    const oldest = ok(await viaBridge(client, 'session_search', { query: 'heron', sort: 'oldest' }));
    const newest = ok(await viaBridge(client, 'session_search', { query: 'heron', sort: 'newest' }));
    assert.deepEqual(
      (oldest.results as Array<Record<string, unknown>>).map((r) => r.session_id),
      ['20260914_080000_heron1', '20260915_080000_heron2'],
    );
    assert.deepEqual(
      (newest.results as Array<Record<string, unknown>>).map((r) => r.session_id),
      ['20260915_080000_heron2', '20260914_080000_heron1'],
    );
    const limited = ok(await viaBridge(client, 'session_search', { query: 'heron', limit: 1 }));
    assert.equal(limited.count, 1);
    // Browse lists a compression chain once, as its live tip (Hermes projects the root forward);
    // the subagent session not at all.
    const browse = ok(await viaBridge(client, 'session_search', { limit: 10 }));
    const listed = (browse.results as Array<Record<string, unknown>>).map((r) => r.session_id);
    assert.equal(listed.length, 10);
    assert.ok(listed.includes('20260913_090000_child1'));
    assert.ok(!listed.includes('20260913_080000_root01'));
    assert.ok(!listed.includes(S_SUB));
    await client.close();
  });

  test('role_filter reaches tool output; secrets are redacted in messages and snippets', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    const defaultRoles = ok(await viaBridge(client, 'session_search', { query: 'build log' }));
    assert.equal(defaultRoles.count, 0, "tool output is not searched by default ('user,assistant')");
    const tools = ok(await viaBridge(client, 'session_search', { query: 'build log', role_filter: 'tool' }));
    assert.equal(tools.count, 1);
    const [t] = tools.results as Array<Record<string, unknown>>;
    assert.equal(t!.matched_role, 'tool');
    const anchor = (t!.messages as Array<Record<string, unknown>>).find((m) => m.anchor)!;
    assert.equal(anchor.tool_name, 'terminal');
    assert.equal(anchor.tool_call_id, 'call_1');
    const secret = ok(await viaBridge(client, 'session_search', { query: 'narwhal deploy' }));
    const text = JSON.stringify(secret);
    assert.ok(!text.includes(token), 'the full token never leaves the gateway');
    assert.ok(!text.includes(token.slice(4, 24)), 'nor its body without the prefix (snippet windows)');
    const cut = ok(await viaBridge(client, 'session_search', { query: 'snippetcut' }));
    const [c] = cut.results as Array<Record<string, unknown>>;
    assert.match(String(c!.snippet), /^\.\.\.\*\*\* w0 w1/, 'the prefix-less token body at the window edge is masked');
    assert.ok(!JSON.stringify(cut).includes(token.slice(4, 24)));
    const read = await viaBridge(client, 'session_search', { session_id: '20260916_080000_secret' });
    assert.ok(!JSON.stringify(read.data).includes(token));
    await client.close();
  });

  test('huge messages are shortened to fit the output cap, flagged, never replaced by a truncation receipt', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const huge = '20260917_080000_huge01';
    const first = (ok(await viaBridge(client, 'session_search', { session_id: huge })).messages as Msg[])[0]!.id;
    for (const args of [{ session_id: huge }, { query: 'capybara' }, { session_id: huge, around_message_id: first }]) {
      const data = ok(await viaBridge(client, 'session_search', args));
      assert.equal('original_chars' in data, false, 'not the gateway truncation receipt');
      assert.ok(JSON.stringify(data).length <= gw.gateway.config.limits.maxOutputChars);
      const messages = data.mode === 'discover' ? (data.results as Array<{ messages: Msg[] }>)[0]!.messages : (data.messages as Msg[]);
      assert.ok(
        messages.some((m) => m.content_truncated === true),
        JSON.stringify(data).slice(0, 300),
      );
    }
    await client.close();
  });

  test('a rewound turn is hidden, compaction-archived turns stay searchable, multimodal parts read as text', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    assert.equal(ok(await viaBridge(client, 'session_search', { query: 'marmot' })).count, 0, 'rewind_to_message took it back');
    assert.equal(ok(await viaBridge(client, 'session_search', { query: 'puffin' })).count, 1);
    const kiwi = ok(await viaBridge(client, 'session_search', { query: 'kiwi' }));
    assert.equal(kiwi.count, 1, 'archive_and_compact keeps the pre-compaction turns discoverable');
    const read = ok(await viaBridge(client, 'session_search', { session_id: '20260920_080000_multim' }));
    const [photo] = read.messages as Msg[];
    assert.equal(photo!.content, 'what bird is this ibis photo', 'the text part, not the stored \\0json: encoding');
    const found = ok(await viaBridge(client, 'session_search', { query: 'ibis' }));
    const [hit] = found.results as Array<Record<string, unknown>>;
    assert.equal(hit!.session_id, '20260920_080000_multim');
    assert.doesNotMatch(JSON.stringify(found), /\\u0000|json:/, 'no encoding marker in snippets or messages');
    const browse = ok(await viaBridge(client, 'session_search', { limit: 10 }));
    const entry = (browse.results as Array<Record<string, unknown>>).find((r) => r.session_id === '20260920_080000_multim');
    assert.equal(entry!.preview, 'what bird is this ibis photo');
    await client.close();
  });

  test("Hermes' writer is never blocked: a search answers while SessionDB holds its write transaction, and leaves no snapshot behind", async () => {
    assert.equal(journalMode(db), 'wal', "Hermes kept the database in WAL mode");
    const client = await connect(gw.mcpUrl, 'legacy');
    // SessionDB.append_message inside its own BEGIN IMMEDIATE, the COMMIT held back until released.
    const writer = await holdHermesWrite(home, '20260921_080000_quokka', 'the quokka question');
    try {
      const during = ok(await viaBridge(client, 'session_search', { query: 'quokka' }));
      assert.equal(during.count, 0, 'the uncommitted row is not visible; the search did not wait for the writer');
      ok(await viaBridge(client, 'session_search', {}));
    } finally {
      // The driver then runs wal_checkpoint(TRUNCATE): busy 0 means no reader still pins the WAL.
      const done = await writer.commit();
      assert.equal(done.checkpoint_busy, 0);
    }
    const afterCommit = ok(await viaBridge(client, 'session_search', { query: 'quokka' }));
    assert.equal(afterCommit.count, 1);
    await client.close();
  });
});

/**
 * By hand: drops `table.column` from a copy, with the indexes, triggers and views that name it
 * first (SQLite refuses to drop a column they use; Hermes 0.22's schema has such indexes). A state
 * Hermes itself never leaves behind.
 */
function dropColumn(w: Database.Database, table: string, column: string): void {
  const dependents = w
    .prepare(`SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') AND sql LIKE ? AND name NOT LIKE 'sqlite_%'`)
    .all(`%${column}%`) as Array<{ type: string; name: string }>;
  for (const d of dependents) w.exec(`DROP ${d.type.toUpperCase()} IF EXISTS "${d.name}"`);
  w.exec(`ALTER TABLE ${table} DROP COLUMN ${column}`);
}

describe('session_search: any schema that keeps what it reads is searched; a missing or foreign database, or one without a column it reads, is a clear error', () => {
  let gw: TestGateway;
  let home: string;
  before(async () => {
    home = makeHermesHome();
    gw = await startTestGateway({ home, env: FOLLOW_PIN });
  });
  after(async () => {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  });

  const install = (mutate?: (w: Database.Database) => void) => installStateDb(home, mutate);

  test('missing state.db → STATE_DB_MISSING (before Hermes ever ran here)', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    for (const args of [{ query: 'otter' }, {}, { session_id: S_CLI }]) {
      assert.match(failsWith(await viaBridge(client, 'session_search', args), 'STATE_DB_MISSING'), /state\.db/);
    }
    assert.ok(!existsSync(join(home, 'state.db')), 'nothing was created');
    await client.close();
  });

  test("the state.db Hermes' async-delegation store makes before any session → STATE_DB_MISSING (no sessions yet)", async () => {
    // Hermes' own tools/async_delegation.py opening state.db: 0.19.0 makes its table alone, 0.22
    // lays out SessionDB's schema (reconcile_state_schema) without a version row or search index.
    for (const f of ['state.db', 'state.db-wal', 'state.db-shm']) rmSync(join(home, f), { force: true });
    const { path, tables } = delegationStore(home);
    assert.ok(tables.includes('async_delegations'), JSON.stringify(tables));
    const hash = sha256(path);
    const client = await connect(gw.mcpUrl, 'legacy');
    for (const args of [{ query: 'otter' }, {}, { session_id: S_CLI }]) {
      assert.match(failsWith(await viaBridge(client, 'session_search', args), 'STATE_DB_MISSING'), /no Hermes sessions in .*state\.db yet/);
    }
    assert.equal(sha256(path), hash, 'never written');
    await client.close();
  });

  test('a newer schema that keeps every table and column session_search reads is searched like this one, and left exactly as it was', async () => {
    // By hand: a future Hermes' version number on the database this Hermes wrote.
    const future = NEWEST_KNOWN_SCHEMA_VERSION + 68;
    const db = install((w) => w.prepare('UPDATE schema_version SET version = ?').run(future));
    const hash = sha256(db);
    const client = await connect(gw.mcpUrl, 'legacy');
    const found = ok(await viaBridge(client, 'session_search', { query: 'otter' }));
    assert.deepEqual((found.results as Array<Record<string, unknown>>).map((r) => r.session_id), [S_API]);
    assert.equal(ok(await viaBridge(client, 'session_search', {})).count, 2);
    assert.equal(ok(await viaBridge(client, 'session_search', { session_id: S_CLI })).message_count, 2);
    assert.equal(sha256(db), hash, 'never migrated or touched');
    await client.close();
  });

  test('a newer schema without a column session_search reads → STATE_DB_SCHEMA_TOO_NEW naming the schema and the column', async () => {
    // By hand: a future Hermes' version number, and a column that version dropped.
    const future = NEWEST_KNOWN_SCHEMA_VERSION + 1;
    const db = install((w) => {
      w.prepare('UPDATE schema_version SET version = ?').run(future);
      dropColumn(w, 'messages', 'compacted');
    });
    const hash = sha256(db);
    const client = await connect(gw.mcpUrl, 'legacy');
    const r = await viaBridge(client, 'session_search', { query: 'otter' });
    const message = failsWith(r, 'STATE_DB_SCHEMA_TOO_NEW');
    assert.match(message, new RegExp(`version ${future}, newer than version ${NEWEST_KNOWN_SCHEMA_VERSION} this gateway knows, and it no longer has messages\\.compacted`));
    assert.deepEqual(r.data.missing_columns, ['messages.compacted']);
    assert.equal(r.data.schema_version, future);
    failsWith(await viaBridge(client, 'session_search', {}), 'STATE_DB_SCHEMA_TOO_NEW');
    assert.equal(sha256(db), hash, 'never migrated or touched');
    await client.close();
  });

  test('an older schema, a missing column of a known schema, or a file that is not a Hermes database → STATE_DB_SCHEMA_UNSUPPORTED / STATE_DB_UNAVAILABLE', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    // By hand, from the database Hermes wrote: states this Hermes never leaves behind (an old
    // version number, a missing column or table). Version 17's number alone is still read.
    install((w) => w.prepare('UPDATE schema_version SET version = ?').run(OLDEST_SUPPORTED_SCHEMA_VERSION));
    assert.equal(ok(await viaBridge(client, 'session_search', { query: 'otter' })).count, 1);
    install((w) => w.prepare('UPDATE schema_version SET version = ?').run(OLDEST_SUPPORTED_SCHEMA_VERSION - 1));
    assert.match(failsWith(await viaBridge(client, 'session_search', { query: 'otter' }), 'STATE_DB_SCHEMA_UNSUPPORTED'), /older than version 17.*migrates/);
    install((w) => dropColumn(w, 'messages', 'compacted'));
    assert.match(failsWith(await viaBridge(client, 'session_search', { query: 'otter' }), 'STATE_DB_SCHEMA_UNSUPPORTED'), /messages\.compacted/);
    install((w) => w.exec('DROP TABLE messages'));
    assert.match(failsWith(await viaBridge(client, 'session_search', { query: 'otter' }), 'STATE_DB_SCHEMA_UNSUPPORTED'), /missing table messages/);
    const db = install();
    unlinkSync(db);
    writeFileSync(db, 'this is not an SQLite database, just text that is long enough to have a header.\n'.repeat(20));
    failsWith(await viaBridge(client, 'session_search', {}), 'STATE_DB_UNAVAILABLE');
    // Back to a good copy: the same gateway answers again (the database is opened per call).
    install();
    ok(await viaBridge(client, 'session_search', { query: 'walrus' }));
    await client.close();
  });

  test("an index Hermes marked stale, or none at all: every search scans the messages table, as Hermes' fail-open search does", async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    // The word index matches whole words: `otte` is no word of the otter session (Hermes 0.22
    // retries a miss on the trigram index, which marks its snippet like the word index does).
    install();
    const indexed = ok(await viaBridge(client, 'session_search', { query: 'otte' }));
    const viaIndex = (indexed.results as Array<Record<string, unknown>>).every((r) => />>>otte<<<|>>>otter<<</.test(String(r.snippet)));
    assert.ok(viaIndex, JSON.stringify(indexed));
    assert.equal(indexed.count, release.has('session_search_substring_retry') ? 1 : 0);
    // By hand: the state_meta flag Hermes 0.22 sets when it detaches a damaged index
    // (hermes_state_fts `_enter_fts_fail_open`; the table is made where this Hermes has none).
    const stale = (w: Database.Database) => {
      w.exec('CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT)');
      w.prepare(`INSERT OR REPLACE INTO state_meta (key, value) VALUES ('fts_stale', '1')`).run();
    };
    for (const mutate of [stale, (w: Database.Database) => w.exec('DROP TABLE messages_fts')]) {
      install(mutate);
      const found = ok(await viaBridge(client, 'session_search', { query: 'otte' }));
      assert.equal(found.count, 1, JSON.stringify(found));
      const [hit] = found.results as Array<Record<string, unknown>>;
      assert.equal(hit!.session_id, S_API);
      assert.doesNotMatch(String(hit!.snippet), />>>/, 'a substring scan, not the index');
      assert.equal(ok(await viaBridge(client, 'session_search', { query: 'otter NOT backup' })).count, 0, "the boolean subset: NOT excludes");
    }
    await client.close();
  });

  test("while Hermes rebuilds its index, the ids it has not reached are scanned too and discover says how far it is", async () => {
    // By hand: Hermes 0.22's rebuild markers (hermes_state_search `_seed_fts_rebuild_markers`),
    // with nothing indexed yet.
    install((w) => {
      const top = (w.prepare('SELECT MAX(id) AS n FROM messages').get() as { n: number }).n;
      w.exec('CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT)');
      w.prepare(`INSERT OR REPLACE INTO state_meta (key, value) VALUES ('fts_rebuild_high_water', ?), ('fts_rebuild_progress', '0')`).run(String(top));
    });
    const client = await connect(gw.mcpUrl, 'modern');
    const found = ok(await viaBridge(client, 'session_search', { query: 'otte' }));
    assert.equal(found.count, 1, 'the unindexed gap is scanned by substring');
    assert.deepEqual((found.index_rebuild as { percent: number }).percent, 0);
    assert.match(String((found.index_rebuild as { note: string }).note), /rebuilding in the background \(0% done, 0 of 5 messages\)/);
    await client.close();
  });
});

describe("session_search follows the Hermes it fronts: 0.19.0's answers, and Hermes 0.22's on the same database", () => {
  let home: string;
  const gateways: TestGateway[] = [];
  before(() => {
    ({ home } = homeWithFixture());
  });
  after(async () => {
    for (const gw of gateways) await gw.close();
    rmSync(home, { recursive: true, force: true });
  });
  const start = async (version: string) => {
    const gw = await startTestGateway({ home, env: { HERMES_MCP_HERMES_VERSION: version } });
    gateways.push(gw);
    return gw;
  };

  test("0.19.0: Hermes 0.19.0's parameters and fields", async () => {
    const gw = await start('0.19.0');
    const client = await connect(gw.mcpUrl, 'modern');
    const described = await client.callTool({ name: 'tool_describe', arguments: { names: ['session_search'] } });
    const params = Object.keys((described.structuredContent as { tools: Record<string, { parameters: { properties: object } }> }).tools.session_search!.parameters.properties);
    assert.deepEqual(params.sort(), ['around_message_id', 'limit', 'query', 'role_filter', 'session_id', 'sort', 'window']);
    const refused = await viaBridge(client, 'session_search', { query: 'otter', detail: 'full' });
    assert.match(failsWith(refused, 'INVALID_ARGUMENTS'), /unknown property "detail"/);
    const found = ok(await viaBridge(client, 'session_search', { query: 'walrus OR otter' }));
    assert.equal('detail' in found, false);
    assert.equal('link_hint' in found, false);
    for (const r of found.results as Array<Record<string, unknown>>) {
      assert.equal('link' in r, false);
      assert.ok((r.messages as Msg[]).length > 1, 'every result hydrated');
    }
    assert.equal(ok(await viaBridge(client, 'session_search', { query: 'walrus zeppelin' })).message, 'No matching sessions found.');
    await client.close();
  });

  test("0.22.2: adaptive detail, links, time bounds, exclusions and the OR-relaxed retry", async () => {
    const gw = await start('0.22.2');
    const client = await connect(gw.mcpUrl, 'legacy');
    const found = ok(await viaBridge(client, 'session_search', { query: 'walrus OR otter' }));
    assert.equal(found.detail, 'adaptive');
    assert.match(String(found.link_hint), /write its `link` value verbatim/);
    const [top, second] = found.results as Array<Record<string, unknown>>;
    assert.equal(top!.detail, 'full');
    assert.equal(second!.detail, 'compact');
    assert.deepEqual(ids(second!.messages), [second!.match_message_id], 'a compact result keeps the matched message alone');
    assert.equal(top!.link, `@session:default/${top!.session_id}`);
    const full = ok(await viaBridge(client, 'session_search', { query: 'walrus OR otter', detail: 'full' }));
    assert.ok((full.results as Array<Record<string, unknown>>).every((r) => r.detail === 'full' && (r.messages as Msg[]).length === 2));
    assert.equal(ok(await viaBridge(client, 'session_search', { query: 'walrus OR otter', before: '2020-01-01' })).count, 0);
    assert.equal(ok(await viaBridge(client, 'session_search', { query: 'walrus OR otter', after: '7d' })).count, 2);
    assert.match(failsWith(await viaBridge(client, 'session_search', { query: 'walrus', after: 'last tuesday' }), 'INVALID_ARGUMENTS'), /invalid time bound: 'last tuesday'/);
    const excluded = ok(await viaBridge(client, 'session_search', { query: 'walrus OR otter', exclude_session_ids: [S_CLI] }));
    assert.deepEqual((excluded.results as Array<Record<string, unknown>>).map((r) => r.session_id), [S_API]);
    // The subagent child's id leaves out its whole lineage (the otter session).
    const lineage = ok(await viaBridge(client, 'session_search', { query: 'otter', exclude_session_ids: [S_SUB] }));
    assert.deepEqual([lineage.count, lineage.sessions_searched], [0, 0]);
    assert.match(String(ok(await viaBridge(client, 'session_search', { query: 'zeppelin' })).message), /FTS5 ANDs all terms by default/);
    const relaxed = ok(await viaBridge(client, 'session_search', { query: 'walrus zeppelin' }));
    assert.deepEqual((relaxed.results as Array<Record<string, unknown>>).map((r) => r.session_id), [S_CLI], 'no session has both words: any of them');
    const read = ok(await viaBridge(client, 'session_search', { session_id: S_CLI }));
    assert.equal(read.link, `@session:default/${S_CLI}`);
    // A role_filter naming tool scans the messages table (no FTS markers); a miss is retried on the trigram index.
    const scanned = ok(await viaBridge(client, 'session_search', { query: 'walrus', role_filter: 'user,tool' }));
    assert.deepEqual((scanned.results as Array<Record<string, unknown>>).map((r) => [r.session_id, r.snippet]), [[S_CLI, 'How do I rotate the walrus certificates?']]);
    const retried = ok(await viaBridge(client, 'session_search', { query: 'otte' }));
    assert.deepEqual((retried.results as Array<Record<string, unknown>>).map((r) => r.session_id), [S_API]);
    assert.match(String((retried.results as Array<Record<string, unknown>>)[0]!.snippet), />>>otte<<<r/);
    // Hermes 0.22's browse, on whichever schema the pinned Hermes wrote (22 has no last_activity_at, no hidden).
    const browsed = ok(await viaBridge(client, 'session_search', { limit: 10 }));
    assert.deepEqual((browsed.results as Array<Record<string, unknown>>).map((r) => [r.session_id, r.link, r.preview]), [
      [S_API, `@session:default/${S_API}`, 'Plan the otter backup window'],
      [S_CLI, `@session:default/${S_CLI}`, 'How do I rotate the walrus certificates?'],
    ]);
    const scrolled = ok(await viaBridge(client, 'session_search', { session_id: S_CLI, around_message_id: M[S_CLI]![0] }));
    assert.match(String(scrolled.hint), /Scroll forward/);
    await client.close();
  });
});
