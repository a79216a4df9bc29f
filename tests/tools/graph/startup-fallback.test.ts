import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { test } from 'node:test';
import { call, connect, optionalComponents, startTestGateway } from '../../helpers/gateway.js';
import { graphReadiness, inspect, standIn } from '../../helpers/graph.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// The catalog is frozen at startup, so inspect_code_graph is always catalogued: with the upstream's
// schema when its session answered with the exact surface, else with the built-in one, the reason in
// /readyz graph, and the real error on every call. The gateway itself always starts.

const dirs = tempDirs();
test.after(() => dirs.removeAll());
const LOOKUP = { request: { type: 'lookup' } };

async function gatewayWith(command: string, optional = optionalComponents('graph')) {
  const root = realpathSync(dirs.make('hmcp-graph-root-'));
  const gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: root, HERMES_MCP_GRAPH_COMMAND: command, HERMES_MCP_OPTIONAL_COMPONENTS: optional } });
  return { gw, root, client: await connect(gw.mcpUrl, 'modern') };
}

async function description(client: Awaited<ReturnType<typeof connect>>): Promise<string> {
  const { data } = await call(client, 'tool_describe', { names: ['inspect_code_graph'] });
  return (data.tools as Record<string, { description: string }>).inspect_code_graph!.description;
}

test('an upstream publishing two tools is refused: GRAPH_SURFACE_MISMATCH in /readyz and on the call, and its sessions are closed', async () => {
  const up = standIn(dirs.make('hmcp-graph-rec-'), '--two-tools');
  const { gw, root, client } = await gatewayWith(up.command);
  try {
    const { code, graph } = await graphReadiness(gw.url);
    assert.equal(code, 503, 'graph is required here');
    assert.equal(graph.status, 'error');
    assert.match(graph.reason ?? '', /^GRAPH_SURFACE_MISMATCH: .*"inspect_code_graph", "dump_graph"/);
    assert.match(await description(client), /was not available when the gateway started/, 'the built-in schema is catalogued');
    const refused = await inspect(client, root, LOOKUP);
    assert.equal(refused.data.error, 'GRAPH_SURFACE_MISMATCH', JSON.stringify(refused.data));
    assert.match(String(refused.data.message), /exactly one tool, "inspect_code_graph".*"dump_graph"/);
    assert.equal(up.starts().length, 2, 'the startup session and the call each tried one');
    await waitFor(() => up.live().length === 0, 3000, 'the mismatched upstreams to be closed');
  } finally {
    await client.close();
    await gw.close();
  }
});

test('a missing upstream command: /readyz graph not_installed (optional here, so 200), no worker started, GRAPH_NOT_INSTALLED on the call', async () => {
  const { gw, root, client } = await gatewayWith('/nonexistent/samchon-graph --mode static', optionalComponents());
  try {
    const { code, graph } = await graphReadiness(gw.url);
    assert.equal(code, 200);
    assert.equal(graph.status, 'not_installed');
    assert.match(graph.reason ?? '', /"\/nonexistent\/samchon-graph" was not found/);
    assert.match(graph.action ?? '', /HERMES_MCP_GRAPH_COMMAND/);
    assert.equal(gw.graph.worker.pid, undefined, 'nothing was spawned to learn that');
    const refused = await inspect(client, root, LOOKUP);
    assert.equal(refused.data.error, 'GRAPH_NOT_INSTALLED', JSON.stringify(refused.data));
    assert.match(String(refused.data.message), /HERMES_MCP_GRAPH_COMMAND/);
  } finally {
    await client.close();
    await gw.close();
  }
});

test("an upstream schema that does not compile: the gateway starts with the built-in schema, says why, and calls still reach the upstream", async () => {
  const up = standIn(dirs.make('hmcp-graph-rec-'), '--bad-schema');
  const { gw, root, client } = await gatewayWith(up.command);
  try {
    const { graph } = await graphReadiness(gw.url);
    assert.equal(graph.status, 'error');
    assert.match(graph.reason ?? '', /^GRAPH_SCHEMA_UNUSABLE: .*does not compile/);
    assert.match(await description(client), /was not available when the gateway started/);
    const answered = await inspect(client, root, { question: 'where', ...LOOKUP });
    assert.equal(answered.isError, false, JSON.stringify(answered.data));
    assert.equal(answered.data.cwd, root);
  } finally {
    await client.close();
    await gw.close();
  }
});
