import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixtureSource } from '../../helpers/fixtures.js';
import { call, connect, ERAS, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

describe('discovery bridge: tool_search / tool_describe / tool_call', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ adapters: [{ name: 'fixture', source: fixtureSource().source }] });
  });
  after(async () => gw.close());

  test("the policy admits every tool the gateway's own families offer: none of native's or the browser's is dropped unseen", () => {
    // Those sources are filtered like Hermes' tool server (the allow list of policy/tool-policy.json):
    // a family tool missing from the list would be left out of the catalog with only a log line.
    const own = gw.gateway.catalog.report.dropped.filter((d) => d.source === 'native' || d.source === 'browser');
    assert.deepEqual(own, []);
    assert.ok(gw.gateway.catalog.names().includes('read_file') && gw.gateway.catalog.names().includes('browser_navigate'));
  });

  for (const era of ERAS) {
    test(`${era}: every catalogued tool is found by its exact name at rank 1`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const names = gw.gateway.catalog.names();
        assert.ok(names.length >= 8);
        for (let i = 0; i < names.length; i += 7) {
          const chunk = names.slice(i, i + 7);
          const { data, isError } = await call(client, 'tool_search', { queries: chunk, limit: 1 });
          assert.equal(isError, false);
          const results = data.results as Array<{ query: string; matches: string[] }>;
          assert.deepEqual(results.map((r) => r.matches[0]), chunk);
          assert.equal(data.total_available, names.length);
        }
      } finally {
        await client.close();
      }
    });
  }

  test('keyword search ranks by BM25 and returns short descriptions and required fields', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const { data } = await call(client, 'tool_search', { queries: ['capability session token'] });
      const matches = (data.results as Array<{ matches: string[] }>)[0]!.matches;
      assert.ok(matches.slice(0, 2).includes('session_open'), JSON.stringify(matches));
      const tools = data.tools as Record<string, { source: string; description: string; required: string[] }>;
      assert.equal(tools.session_open!.source, 'gateway');
      assert.ok(tools.session_open!.description.length <= 500);
      const view = await call(client, 'tool_search', { queries: ['skill_view'] });
      assert.deepEqual((view.data.tools as Record<string, { required: string[] }>).skill_view!.required, ['name']);
    } finally {
      await client.close();
    }
  });

  test('tool_search rejects a boolean or out-of-range limit, an empty list, an empty string and 8 queries', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    try {
      const bad = [
        { queries: ['x'], limit: true },
        { queries: ['x'], limit: 0 },
        { queries: ['x'], limit: 26 },
        { queries: [] },
        { queries: [''] },
        { queries: ['   '] },
        { queries: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] },
        { queries: ['x'], extra: 1 },
      ];
      for (const args of bad) {
        const { data, isError } = await call(client, 'tool_search', args);
        assert.equal(isError, true, JSON.stringify(args));
        assert.equal(data.error, 'INVALID_ARGUMENTS', JSON.stringify(args));
      }
    } finally {
      await client.close();
    }
  });

  test('tool_describe returns authoritative schemas and lists unknown names', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const { data } = await call(client, 'tool_describe', { names: ['skill_view', 'no_such_tool', 'browser_cdp'] });
      const tools = data.tools as Record<string, { parameters: { required: string[] }; source: string }>;
      assert.deepEqual(Object.keys(tools), ['skill_view']);
      assert.deepEqual(tools.skill_view!.parameters.required, ['name']);
      assert.equal(tools.skill_view!.source, 'hermes');
      assert.deepEqual(data.not_found, ['no_such_tool', 'browser_cdp']);
      const tooMany = await call(client, 'tool_describe', { names: Array.from({ length: 11 }, (_, i) => `t${i}`) });
      assert.equal(tooMany.data.error, 'INVALID_ARGUMENTS');
    } finally {
      await client.close();
    }
  });

  test('tool_call takes exactly one call and validates the target arguments before dispatch', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const none = await call(client, 'tool_call', { calls: [] });
      assert.equal(none.data.error, 'INVALID_ARGUMENTS');
      const two = await call(client, 'tool_call', { calls: [{ name: 'skills_list' }, { name: 'skills_list' }] });
      assert.equal(two.data.error, 'INVALID_ARGUMENTS');
      const unknown = await viaBridge(client, 'computer_use', {});
      assert.equal(unknown.data.error, 'UNKNOWN_TOOL');
      const badArgs = await viaBridge(client, 'skill_view', { name: 42 });
      assert.equal(badArgs.data.error, 'INVALID_ARGUMENTS');
      assert.match(String(badArgs.data.message), /name/);
      const missing = await viaBridge(client, 'skill_view', {});
      assert.equal(missing.data.error, 'INVALID_ARGUMENTS');
      const ok = await viaBridge(client, 'skill_view', { name: 'demo' });
      assert.equal(ok.isError, false, JSON.stringify(ok.data));
      assert.equal(ok.data.name, 'demo');
    } finally {
      await client.close();
    }
  });

  test("the target's isError and structuredContent survive the bridge, redacted, mirrored as one JSON text block", async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    try {
      const secret = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4';
      const { result, data, isError } = await viaBridge(client, 'fixture_fail', { secret });
      assert.equal(isError, true);
      assert.equal(data.error, 'UPSTREAM_FAILED');
      assert.notEqual(data.echoed, secret);
      assert.ok(!JSON.stringify(result).includes(secret), 'secret must not survive anywhere in the result');
      assert.equal(result.content.length, 1);
      assert.deepEqual(JSON.parse(result.content[0]!.text!), data);
    } finally {
      await client.close();
    }
  });

  for (const era of ERAS) {
    test(`${era}: a deferred tool called directly on tools/call is denied; unknown names too`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const hidden = await call(client, 'skill_view', { name: 'demo' });
        assert.equal(hidden.isError, true);
        assert.equal(hidden.data.error, 'TOOL_NOT_PUBLIC');
        const forbidden = await call(client, 'browser_cdp', {});
        assert.equal(forbidden.data.error, 'UNKNOWN_TOOL');
      } finally {
        await client.close();
      }
    });
  }
});
