import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, makeHermesHome, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';
import { hermesEnv, runDriver } from '../helpers/hermes.js';
import { S_API, S_CLI, STANDARD_SESSIONS, writeSessions, type MessageSpec } from '../fixtures/hermes-home.js';

// The gateway's session_search against Hermes' own (tools/session_search_tool.py, run by
// tests/hermes/drivers/session_search.py) on two copies of one database Hermes wrote: the same
// arguments must find the same sessions, anchors, windows, snippets and order. What the gateway
// adds on purpose (a historical-context note, redaction, output fitting) is not compared, nor the
// differences named below.

type Answer = Record<string, unknown>;
type Entry = Record<string, unknown> & { messages?: Array<{ id: number }>; bookend_start?: Array<{ id: number }>; bookend_end?: Array<{ id: number }> };

const user = (content: string): MessageSpec => ({ role: 'user', content });
const ids = (list: unknown) => ((list as Array<{ id: number }> | undefined) ?? []).map((m) => m.id);

/** The parts of an answer both implementations must agree on. */
function essentials(a: Answer, compareBookends = true): unknown {
  const mode = a.mode;
  const out: Record<string, unknown> = { success: a.success, mode, count: a.count };
  if (mode === 'discover') {
    out.sessions_searched = a.sessions_searched;
    out.results = (a.results as Entry[]).map((r) => ({
      session_id: r.session_id,
      when: r.when,
      source: r.source,
      model: r.model,
      title: r.title,
      matched_role: r.matched_role,
      match_message_id: r.match_message_id,
      parent_session_id: r.parent_session_id,
      snippet: r.snippet,
      messages: ids(r.messages),
      ...(compareBookends && r.matched_role !== 'session_title' ? { bookend_start: ids(r.bookend_start), bookend_end: ids(r.bookend_end) } : {}),
      messages_before: r.messages_before,
      messages_after: r.messages_after,
    }));
  } else if (mode === 'browse') {
    out.results = (a.results as Entry[]).map((r) => ({ session_id: r.session_id, title: r.title, source: r.source, message_count: r.message_count, preview: r.preview }));
  } else {
    Object.assign(out, { session_id: a.session_id, session_meta: a.session_meta, message_count: a.message_count, truncated: a.truncated, messages: (a.messages as Entry[]).map((m) => ({ id: m.id, role: m.role, content: m.content })) });
    if (mode === 'scroll') Object.assign(out, { window: a.window, messages_before: a.messages_before, messages_after: a.messages_after });
  }
  return out;
}

describe("session_search answers as Hermes' own session_search does, on the same database", () => {
  let gw: TestGateway;
  const dirs: string[] = [];
  let calls: Array<Record<string, unknown>>;
  let hermesAnswers: Answer[];
  let written: Record<string, number[]>;
  before(async () => {
    const built = mkdtempSync(join(tmpdir(), 'hmcp-ss-hermes-'));
    dirs.push(built);
    written = writeSessions(built, [
      ...STANDARD_SESSIONS,
      { id: '20260905_080000_title1', title: 'Otter plan', messages: [user('first thoughts on the puffin census'), { role: 'assistant', content: 'count the puffin colonies' }], end_reason: 'compression' },
      { id: '20260905_090000_title2', title: 'Otter plan #2', parent_session_id: '20260905_080000_title1', messages: [user('the puffin census continues')] },
      { id: '20260906_080000_cjk001', messages: [user('我们讨论了数据库迁移计划，然后部署到生产环境。'), { role: 'assistant', content: '好的，先备份再迁移。' }] },
      { id: '20260907_080000_cron01', source: 'cron', messages: [{ role: 'assistant', content: 'walrus walrus walrus report' }] },
      { id: '20260908_080000_compac', messages: [user('the kiwi migration plan'), { role: 'assistant', content: 'kiwi steps one to three' }], compact: [user('Summary of the earlier kiwi turns')] },
      {
        id: '20260909_080000_long01',
        messages: Array.from({ length: 30 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: i === 15 ? 'the flamingo migration is decided' : `planning step ${i}` })),
      },
    ]).messages;
    const long = written['20260909_080000_long01']!;
    calls = [
      { query: 'otter' },
      { query: 'walrus', limit: 5 },
      { query: 'puffin', limit: 5 },
      { query: 'Otter plan' },
      { query: '"Otter plan"' },
      { query: '数据库迁移' },
      { query: '迁移' },
      { query: 'kiwi' },
      { query: 'flamingo' },
      { query: 'planning', sort: 'oldest', limit: 2 },
      { query: 'nothing-matches-this' },
      {},
      { limit: 10 },
      { session_id: S_CLI },
      { session_id: '20260909_080000_long01' },
      { session_id: S_API, around_message_id: written[S_API]![1] },
      { session_id: '20260909_080000_long01', around_message_id: long[15], window: 3 },
    ];
    const hermesHome = mkdtempSync(join(tmpdir(), 'hmcp-ss-hermes-home-'));
    dirs.push(hermesHome);
    copyFileSync(join(built, 'state.db'), join(hermesHome, 'state.db'));
    hermesAnswers = (await runDriver<{ results: Answer[] }>('session_search.py', { calls }, hermesEnv(hermesHome, { HOME: hermesHome }))).results;
    const home = makeHermesHome();
    dirs.push(home);
    copyFileSync(join(built, 'state.db'), join(home, 'state.db'));
    gw = await startTestGateway({ home });
  });
  after(async () => {
    await gw?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('every shape: the same sessions, anchors, windows, snippets and order', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      for (const [i, args] of calls.entries()) {
        const r = await viaBridge(client, 'session_search', args);
        assert.equal(r.isError, false, JSON.stringify(r.data));
        assert.deepEqual(essentials(r.data), essentials(hermesAnswers[i]!), `session_search ${JSON.stringify(args)}`);
      }
    } finally {
      await client.close();
    }
  });

  test('a query naming a session title finds that session first, as matched_role session_title (the newest "#N" continuation)', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    try {
      const data = (await viaBridge(client, 'session_search', { query: 'Otter plan' })).data;
      const [first] = data.results as Entry[];
      assert.equal(first!.matched_role, 'session_title');
      assert.equal(first!.session_id, '20260905_090000_title2');
      assert.equal(first!.parent_session_id, '20260905_080000_title1');
      assert.equal(first!.match_message_id, written['20260905_090000_title2']![0]);
    } finally {
      await client.close();
    }
  });
});
