import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { call, connect, optionalComponents, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { graphReadiness, inspect, TTSC_GRAPH_BIN, TTSC_GRAPH_BINARY, typescriptProject } from '../../helpers/graph.js';
import { tempDirs } from '../../helpers/temp.js';

// The real upstream: @ttsc/graph (Samchon Graph's TypeScript-only sibling, same one-tool contract,
// tool `inspect_typescript_graph`) over stdio, on a fixture TypeScript project. TTSC_GRAPH_BINARY is
// set in the gateway's own environment only; the workers' scrubbed environment would drop it, so
// the lookup working proves the graph passthrough carries it to the upstream.

const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let project: string;

before(async () => {
  const root = realpathSync(dirs.make('hmcp-ttsc-root-'));
  project = typescriptProject(join(root, 'greeter'));
  gw = await startTestGateway({
    env: {
      HERMES_MCP_ROOTS: root,
      HERMES_MCP_GRAPH_COMMAND: `${process.execPath} ${TTSC_GRAPH_BIN}`,
      HERMES_MCP_GRAPH_TOOL: 'inspect_typescript_graph',
      TTSC_GRAPH_BINARY,
      HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('graph'),
    },
  });
  client = await connect(gw.mcpUrl, 'modern');
});
after(async () => {
  await client?.close();
  await gw?.close();
  dirs.removeAll();
});

test("the public schema is the upstream tool's own with a required cwd first, and the routing note leads the description", async () => {
  const { data } = await call(client, 'tool_describe', { names: ['inspect_code_graph'] });
  const tool = (data.tools as Record<string, { description: string; source: string; parameters: { properties: Record<string, unknown>; required: string[]; $defs?: unknown } }>).inspect_code_graph!;
  assert.equal(tool.source, 'graph');
  assert.deepEqual(Object.keys(tool.parameters.properties), ['cwd', 'draft', 'question', 'request', 'review']);
  assert.deepEqual(tool.parameters.required, ['cwd', 'question', 'draft', 'review', 'request']);
  assert.ok(tool.parameters.$defs, "the upstream's definitions are kept for its request variants");
  assert.match(tool.description, /^Gateway routing: pass the absolute project root in cwd/);
  assert.match(tool.description, /TypeScript compiler graph/, "the upstream's own description follows");
});

test('a lookup through tool_call reaches @ttsc/graph in the project root and its answer comes back', async () => {
  const args = { question: 'where is shout defined', draft: 'lookup shout', review: 'a named symbol: lookup', request: { type: 'lookup', query: 'shout' } };
  const { result, isError } = await inspect(client, project, args);
  assert.equal(isError, false, JSON.stringify(result));
  const text = result.content.map((b) => b.text ?? '').join('\n');
  assert.match(text, /src\/index\.ts#shout:function/);
  const again = await inspect(client, project, { ...args, request: { type: 'trace', from: 'shout', direction: 'reverse' } });
  assert.equal(again.isError, false, JSON.stringify(again.result));
  assert.match(again.result.content.map((b) => b.text ?? '').join('\n'), /greet/, 'the reverse trace finds the caller');
});

test('/readyz graph is ready: the schema root session answers with the exact surface', async () => {
  const { code, graph } = await graphReadiness(gw.url);
  assert.equal(graph.status, 'ok', JSON.stringify(graph));
  assert.equal(graph.ready, true);
  assert.equal(code, 200, 'graph is a required component here');
});

test("arguments are checked against the upstream's schema before anything runs", async () => {
  const { data, isError } = await inspect(client, project, { request: { type: 'lookup', query: 'shout' } });
  assert.equal(isError, true);
  assert.equal(data.error, 'INVALID_ARGUMENTS');
  assert.match(String(data.message), /missing required property "question"/);
});

test("the upstream's own tool error is passed through (a root with no tsconfig.json)", async () => {
  const args = { question: 'where is shout', draft: 'lookup', review: 'lookup', request: { type: 'lookup', query: 'shout' } };
  const { result, isError } = await inspect(client, join(project, '..'), args);
  assert.equal(isError, true);
  assert.match(result.content.map((b) => b.text ?? '').join('\n'), /tsconfig/);
});

test("the upstream's environment is explicit: with the passthrough emptied it never sees TTSC_GRAPH_BINARY, even though the gateway has it", async () => {
  const root = realpathSync(dirs.make('hmcp-ttsc-root-'));
  const bare = typescriptProject(join(root, 'greeter'));
  // In the environment the gateway inherits (the workers' environment is scrubbed from it) as well
  // as in its configuration.
  process.env.TTSC_GRAPH_BINARY = TTSC_GRAPH_BINARY;
  const other = await startTestGateway({
    env: { HERMES_MCP_ROOTS: root, HERMES_MCP_GRAPH_COMMAND: `${process.execPath} ${TTSC_GRAPH_BIN}`, HERMES_MCP_GRAPH_TOOL: 'inspect_typescript_graph', TTSC_GRAPH_BINARY, HERMES_MCP_GRAPH_ENV_PASSTHROUGH: '' },
  });
  const c = await connect(other.mcpUrl, 'modern');
  try {
    const args = { question: 'where is shout', draft: 'lookup', review: 'lookup', request: { type: 'lookup', query: 'shout' } };
    const { result, isError } = await inspect(c, bare, args);
    assert.equal(isError, true);
    assert.match(result.content.map((b) => b.text ?? '').join('\n'), /set TTSC_GRAPH_BINARY/);
  } finally {
    delete process.env.TTSC_GRAPH_BINARY;
    await c.close();
    await other.close();
  }
});
