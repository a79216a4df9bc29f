import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, ERAS, viaBridge } from '../../helpers/gateway.js';
import { USER_PEER } from '../../helpers/memory.js';
import { memorySuite } from './fixture.js';

// The memory tools through the real gateway over real MCP, driving the real @honcho-ai/sdk against
// the Honcho stand-in that honcho.json points at: readback of seeded data, the conclude round trip
// with the exact v3 calls, and every refusal leaving Honcho untouched.

const CONCLUSIONS = '/v3/workspaces/hermes/conclusions';

describe('memory tools over MCP', () => {
  const suite = memorySuite();

  for (const era of ERAS) {
    test(`${era}: memory_context (public) serves the user's representation, card, recent conclusions and a session summary`, async () => {
      await suite.withClient(era, async (client) => {
        const { data, isError } = await call(client, 'memory_context', { session: 'hermes-mcp-gateway' });
        assert.equal(isError, false, JSON.stringify(data));
        assert.equal(data.workspace, 'hermes');
        assert.equal(data.user_peer, USER_PEER);
        assert.equal(data.assistant_peer, 'chatgpt');
        assert.match(String(data.representation), /prefers pnpm/);
        assert.deepEqual(data.card, ['Name: Ada', 'Role: platform engineer', 'Prefers pnpm over npm']);
        assert.ok(Array.isArray(data.recent_conclusions));
        const session = data.session as { id: string; summary: string; messages: Array<{ peer: string; content: string }> };
        assert.equal(session.summary, 'Ada and Hermes are building the MCP gateway memory adapter.');
        assert.deepEqual(session.messages.map((x) => x.peer), [USER_PEER, 'hermes']);
        // A read never creates the session: no POST /sessions, only its context.
        assert.equal(suite.callsTo('POST', '/v3/workspaces/hermes/sessions').length, 0);
        const ctx = suite.callsTo('GET', '/v3/workspaces/hermes/sessions/hermes-mcp-gateway/context').at(-1)!;
        assert.deepEqual(ctx.query, { summary: 'true', peer_target: USER_PEER });
      });
    });

    test(`${era}: memory_profile reads the user's peer card through tool_call`, async () => {
      await suite.withClient(era, async (client) => {
        const { data, isError } = await viaBridge(client, 'memory_profile');
        assert.equal(isError, false, JSON.stringify(data));
        assert.deepEqual(data.card, ['Name: Ada', 'Role: platform engineer', 'Prefers pnpm over npm']);
        assert.ok(suite.callsTo('GET', '/v3/workspaces/hermes/peers/hermes/card').some((c) => c.query.target === USER_PEER), 'Hermes\' assistant peer\'s card of the user, as Hermes reads it');
      });
    });
  }

  test('memory_context with a query curates the representation; an unknown session is reported, not created', async () => {
    await suite.withClient('modern', async (client) => {
      const { data } = await call(client, 'memory_context', { query: 'deploys on Fridays', session: 'no-such-session' });
      assert.equal(data.representation, '- Ada deploys the gateway on Mondays, never on Fridays');
      assert.deepEqual(data.session, { id: 'no-such-session', error: 'not_found' });
      assert.equal(suite.callsTo('POST', '/v3/workspaces/hermes/sessions').length, 0);
    });
  });

  test('memory_profile is read-only: a card argument is refused and no card is ever written', async () => {
    await suite.withClient('legacy', async (client) => {
      const { data, isError } = await viaBridge(client, 'memory_profile', { card: ['Name: Mallory'] });
      assert.equal(isError, true);
      assert.equal(data.error, 'INVALID_ARGUMENTS');
      assert.equal(suite.callsTo('PUT', /\/card$/).length, 0);
    });
  });

  test('memory_search returns representation excerpts and matching gateway conclusions (no LLM)', async () => {
    await suite.withClient('modern', async (client) => {
      const created = await viaBridge(client, 'memory_conclude', { conclusion: 'Ada wants Friday deploys blocked by CI', kind: 'decision' });
      assert.equal(created.isError, false, JSON.stringify(created.data));
      const { data, isError } = await viaBridge(client, 'memory_search', { query: 'Friday deploys', limit: 3 });
      assert.equal(isError, false, JSON.stringify(data));
      assert.equal(data.representation, '- Ada deploys the gateway on Mondays, never on Fridays');
      assert.deepEqual((data.conclusions as Array<{ kind: string; content: string }>).map((c) => [c.kind, c.content]), [['decision', 'Ada wants Friday deploys blocked by CI']]);
      const ctx = suite.callsTo('GET', '/v3/workspaces/hermes/peers/hermes/context').at(-1)!;
      assert.deepEqual(ctx.query, { target: USER_PEER, search_query: 'Friday deploys', search_top_k: '3' });
      const query = suite.callsTo('POST', `${CONCLUSIONS}/query`).at(-1)!;
      assert.deepEqual(query.body, { query: 'Friday deploys', top_k: 3, filters: { observer_id: 'chatgpt', observed_id: USER_PEER } });
      assert.equal(data.excerpts, null, 'no message says anything about Friday deploys');
      const search = suite.callsTo('POST', '/v3/workspaces/hermes/search').at(-1)!;
      assert.deepEqual(search.body, { query: 'Friday deploys', filters: { peer_perspective: USER_PEER }, limit: 10 }, "Hermes' honcho_search: every session the user took part in");
      assert.equal(suite.callsTo('POST', /\/chat$/).length, 0, 'search never asks the dialectic LLM');
    });
  });

  test('memory_search falls back to the representation endpoint when the context has none, as Hermes does', async () => {
    await suite.withClient('legacy', async (client) => {
      const { data, isError } = await viaBridge(client, 'memory_search', { query: 'kubernetes helm charts' });
      assert.equal(isError, false, JSON.stringify(data));
      assert.equal(data.representation, null);
      assert.deepEqual(data.conclusions, []);
      const rep = suite.callsTo('POST', '/v3/workspaces/hermes/peers/hermes/representation').at(-1)!;
      assert.deepEqual(rep.body, { target: USER_PEER, search_query: 'kubernetes helm charts', search_top_k: 10 });
    });
  });

  test('memory_reasoning asks the dialectic endpoint with the requested reasoning level', async () => {
    await suite.withClient('legacy', async (client) => {
      const { data, isError } = await viaBridge(client, 'memory_reasoning', { query: 'Which package manager does Ada prefer?', reasoning_level: 'medium' });
      assert.equal(isError, false, JSON.stringify(data));
      assert.equal(data.reasoning_level, 'medium');
      assert.match(String(data.answer), /prefers pnpm/);
      const chat = suite.callsTo('POST', '/v3/workspaces/hermes/peers/hermes/chat').at(-1)!;
      assert.deepEqual(chat.body, { query: 'Which package manager does Ada prefer?', target: USER_PEER, stream: false, reasoning_level: 'medium' });
    });
  });

  test('conclude create -> list shows it -> delete removes it, with the exact v3 calls (workspace hermes, chatgpt observes ada)', async () => {
    await suite.withClient('modern', async (client) => {
      const before = suite.standin.calls.length;
      const created = await viaBridge(client, 'memory_conclude', { action: 'create', kind: 'architecture', conclusion: 'The gateway keeps one Honcho client per process' });
      assert.equal(created.isError, false, JSON.stringify(created.data));
      assert.equal(created.data.state, 'created');
      const conclusion = created.data.conclusion as { id: string; kind: string; content: string };
      assert.deepEqual([conclusion.kind, conclusion.content], ['architecture', 'The gateway keeps one Honcho client per process']);

      const listed = await viaBridge(client, 'memory_conclude', { action: 'list' });
      assert.equal(listed.isError, false, JSON.stringify(listed.data));
      const items = listed.data.conclusions as Array<{ id: string; kind: string }>;
      assert.equal(items[0]!.id, conclusion.id, 'newest first');
      assert.deepEqual([listed.data.page, listed.data.size], [1, 20]);

      const deleted = await viaBridge(client, 'memory_conclude', { action: 'delete', id: conclusion.id });
      assert.deepEqual(deleted.data, { state: 'deleted', id: conclusion.id });
      const again = await viaBridge(client, 'memory_conclude', { action: 'list' });
      assert.ok(!(again.data.conclusions as Array<{ id: string }>).some((c) => c.id === conclusion.id));

      const wire = suite.standin.calls.slice(before).filter((c) => c.path.startsWith(CONCLUSIONS)).map((c) => ({ method: c.method, path: c.path, query: c.query, body: c.body, status: c.status }));
      assert.deepEqual(wire, [
        {
          method: 'POST',
          path: CONCLUSIONS,
          query: {},
          body: { conclusions: [{ content: '[architecture] The gateway keeps one Honcho client per process', session_id: null, observer_id: 'chatgpt', observed_id: USER_PEER }] },
          status: 201,
        },
        { method: 'POST', path: `${CONCLUSIONS}/list`, query: { page: '1', size: '20' }, body: { filters: { observer_id: 'chatgpt', observed_id: USER_PEER } }, status: 200 },
        // delete: ownership first, through the same filtered list, then the DELETE.
        { method: 'POST', path: `${CONCLUSIONS}/list`, query: { page: '1', size: '100' }, body: { filters: { observer_id: 'chatgpt', observed_id: USER_PEER } }, status: 200 },
        { method: 'DELETE', path: `${CONCLUSIONS}/${conclusion.id}`, query: {}, body: undefined, status: 204 },
        { method: 'POST', path: `${CONCLUSIONS}/list`, query: { page: '1', size: '20' }, body: { filters: { observer_id: 'chatgpt', observed_id: USER_PEER } }, status: 200 },
      ]);
      // Every call went to the configured workspace with the placeholder key Hermes sends to a loopback Honcho.
      assert.ok(suite.standin.calls.slice(before).every((c) => (c.path === '/v3/workspaces' || c.path.startsWith('/v3/workspaces/hermes/')) && c.authorization === 'Bearer local'));
    });
  });

  test('deleting an unknown conclusion answers MEMORY_CONCLUSION_NOT_FOUND', async () => {
    await suite.withClient('legacy', async (client) => {
      const { data, isError } = await viaBridge(client, 'memory_conclude', { action: 'delete', id: 'no-such-conclusion' });
      assert.equal(isError, true);
      assert.equal(data.error, 'MEMORY_CONCLUSION_NOT_FOUND');
    });
  });

  test("delete only reaches this gateway's conclusions: Hermes' own and the user's deductive ones answer NOT_FOUND and stay", async () => {
    // Conclusions in the same workspace the gateway never wrote: Hermes' peer observing the user,
    // and a deductive conclusion by the user about themself.
    suite.standin.seed({
      workspace: 'hermes',
      conclusions: [
        { observer: 'hermes', observed: USER_PEER, content: 'Ada reviews PRs in the morning' },
        { observer: USER_PEER, observed: USER_PEER, content: 'Ada values reproducible builds', level: 'deductive' },
      ],
    });
    const foreign = suite.standin.conclusions('hermes').filter((c) => c.observer_id !== 'chatgpt');
    assert.ok(foreign.length >= 2);
    await suite.withClient('modern', async (client) => {
      const listed = await viaBridge(client, 'memory_conclude', { action: 'list', size: 100 });
      const listedIds = (listed.data.conclusions as Array<{ id: string }>).map((c) => c.id);
      for (const c of foreign) {
        assert.ok(!listedIds.includes(c.id), 'list never shows a foreign conclusion');
        const { data, isError } = await viaBridge(client, 'memory_conclude', { action: 'delete', id: c.id });
        assert.equal(isError, true);
        assert.equal(data.error, 'MEMORY_CONCLUSION_NOT_FOUND', JSON.stringify(data));
        assert.equal(data.state, 'not_sent');
        assert.ok(suite.standin.conclusions('hermes').some((x) => x.id === c.id), 'the foreign conclusion stays in Honcho');
        // The ledger released it: a second try answers the same, not MEMORY_MUTATION_PENDING.
        assert.equal((await viaBridge(client, 'memory_conclude', { action: 'delete', id: c.id })).data.error, 'MEMORY_CONCLUSION_NOT_FOUND');
      }
      assert.equal(suite.callsTo('DELETE', /\/conclusions\//).filter((c) => foreign.some((f) => c.path.endsWith(`/${f.id}`))).length, 0, 'no DELETE was sent for them');

      // The gateway's own conclusion is still deletable.
      const created = await viaBridge(client, 'memory_conclude', { kind: 'preference', conclusion: 'Ada prefers small reviewed diffs' });
      const own = (created.data.conclusion as { id: string }).id;
      const deleted = await viaBridge(client, 'memory_conclude', { action: 'delete', id: own });
      assert.deepEqual(deleted.data, { state: 'deleted', id: own });
      assert.ok(!suite.standin.conclusions('hermes').some((x) => x.id === own));
    });
  });

  test('the ownership check pages through the filtered list (bounded) to find an older own conclusion', async () => {
    // 120 of the gateway's own conclusions: the oldest is on page 2 of the 100-per-page ownership scan.
    suite.standin.seed({
      workspace: 'hermes',
      conclusions: Array.from({ length: 120 }, (_, i) => ({ observer: 'chatgpt', observed: USER_PEER, content: `[project_state] bulk fact ${i}` })),
    });
    const oldest = suite.standin.conclusions('hermes').find((c) => c.content === '[project_state] bulk fact 0')!;
    await suite.withClient('legacy', async (client) => {
      const before = suite.standin.calls.length;
      const deleted = await viaBridge(client, 'memory_conclude', { action: 'delete', id: oldest.id });
      assert.deepEqual(deleted.data, { state: 'deleted', id: oldest.id });
      const pages = suite.standin.calls.slice(before).filter((c) => c.path === `${CONCLUSIONS}/list`).map((c) => c.query.page);
      assert.deepEqual(pages, ['1', '2']);
    });
  });

  describe('refusals: stable codes, nothing sent to Honcho', () => {
    const refusals: Array<[string, string, Record<string, unknown>, string]> = [
      ['secret-like content', 'memory_conclude', { kind: 'project_state', conclusion: 'Deploy with token ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, 'MEMORY_CONCLUSION_SECRET'],
      ['an API key assignment', 'memory_conclude', { kind: 'project_state', conclusion: 'HONCHO_API_KEY=hch-v2-abcdefghijklmnopqrstuvwxyz' }, 'MEMORY_CONCLUSION_SECRET'],
      ['temporary phrasing', 'memory_conclude', { kind: 'decision', conclusion: 'For now, deploy from the laptop' }, 'MEMORY_CONCLUSION_TEMPORARY'],
      ['a missing kind', 'memory_conclude', { conclusion: 'Ada prefers tabs' }, 'MEMORY_KIND_REQUIRED'],
      ['an unknown kind', 'memory_conclude', { kind: 'mood', conclusion: 'Ada is happy' }, 'INVALID_ARGUMENTS'],
      ['an oversized conclusion', 'memory_conclude', { kind: 'preference', conclusion: 'x'.repeat(1001) }, 'MEMORY_CONCLUSION_TOO_LARGE'],
      ['an unknown field', 'memory_conclude', { kind: 'preference', conclusion: 'Ada prefers tabs', peer: 'hermes' }, 'INVALID_ARGUMENTS'],
      ['a field of another action', 'memory_conclude', { kind: 'preference', conclusion: 'Ada prefers tabs', id: 'abc' }, 'INVALID_ARGUMENTS'],
      ['an oversized search query', 'memory_search', { query: 'q'.repeat(2001) }, 'MEMORY_QUERY_TOO_LARGE'],
      ['an oversized reasoning query', 'memory_reasoning', { query: 'q'.repeat(2001) }, 'MEMORY_QUERY_TOO_LARGE'],
      ['an unknown search field', 'memory_search', { query: 'tea', max_tokens: 800 }, 'INVALID_ARGUMENTS'],
    ];
    for (const [what, tool, args, expected] of refusals) {
      test(`${tool}: ${what} -> ${expected}`, async () => {
        await suite.withClient('modern', async (client) => {
          const before = suite.standin.calls.length;
          const { data, isError } = await viaBridge(client, tool, args);
          assert.equal(isError, true);
          assert.equal(data.error, expected, JSON.stringify(data));
          assert.deepEqual(suite.standin.calls.slice(before), [], 'nothing reached Honcho');
        });
      });
    }

    test('memory_context (public): an oversized query is refused before Honcho', async () => {
      await suite.withClient('legacy', async (client) => {
        const before = suite.standin.calls.length;
        const { data } = await call(client, 'memory_context', { query: 'q'.repeat(2001) });
        assert.equal(data.error, 'MEMORY_QUERY_TOO_LARGE');
        assert.deepEqual(suite.standin.calls.slice(before), []);
      });
    });
  });
});
