import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { descendantsOf, processStartTime } from '../../shared/proc.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { waitFor } from '../helpers/wait.js';
import { fuzzParameters } from './settings.js';
import { legacySession, LEGACY, modernRequest, post, replyProblem, rssBytes, toolResult, type Reply } from './rpc.js';
import { invalidFor, validish, type Schema } from './schema-arbitrary.js';

// Arbitrary arguments for every deferred tool, from the schema tool_describe serves. Read-only
// tools get schema-shaped and random arguments; every tool that runs commands, writes or destroys
// gets only arguments its schema refuses, and must refuse them (INVALID_ARGUMENTS) before anything
// runs: no process is started on this host by any of those calls.

/** Never called with arguments that could pass validation, whatever their annotations say. */
const NEVER_VALID = /^(terminal|execute_code|job_.*|write_file|patch|process_manage|cronjob|session_close|memory_conclude|hermes_task)$/;
const RSS_GROWTH_BOUND = 192 * 1024 * 1024;

interface Described {
  name: string;
  schema: Schema;
  readOnly: boolean;
}

let gw: TestGateway;
let tools: Described[];
let token: string;
let sessionId: string;
let rssBefore: number;

/** tool_call of `name` in either era; `token` makes owner-bound tools reach validation. */
async function toolCall(era: 'modern' | 'legacy', name: string, args: unknown): Promise<Reply> {
  const params = { name: 'tool_call', arguments: { calls: [{ name, arguments: args }], session_token: token } };
  if (era === 'modern') {
    const r = modernRequest('tools/call', params);
    return post(gw.mcpUrl, r.body, r.headers);
  }
  const legacyParams = { ...params, arguments: { calls: [{ name, arguments: args }] } };
  return post(gw.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: legacyParams }), { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY });
}

/** The processes below this test process (the in-process gateway's workers), with start times. */
function processes(): Set<string> {
  return new Set(descendantsOf(process.pid).map((pid) => `${pid}@${processStartTime(pid) ?? ''}`));
}

before(async () => {
  gw = await startTestGateway();
  sessionId = await legacySession(gw.mcpUrl);
  const open = modernRequest('tools/call', { name: 'tool_call', arguments: { calls: [{ name: 'session_open', arguments: {} }] } });
  token = toolResult(await post(gw.mcpUrl, open.body, open.headers))?.structuredContent?.session_token as string;
  assert.ok(token, 'session_open gave a token');
  const names = gw.gateway.catalog.all().map((e) => e.tool.name);
  tools = [];
  for (let i = 0; i < names.length; i += 10) {
    const d = modernRequest('tools/call', { name: 'tool_describe', arguments: { names: names.slice(i, i + 10) } });
    const described = toolResult(await post(gw.mcpUrl, d.body, d.headers))?.structuredContent?.tools as Record<string, { parameters: Schema; annotations?: { readOnlyHint?: boolean } }>;
    for (const [name, t] of Object.entries(described)) tools.push({ name, schema: t.parameters, readOnly: t.annotations?.readOnlyHint === true && !NEVER_VALID.test(name) });
  }
  assert.equal(tools.length, names.length, 'tool_describe described every catalogued tool');
  rssBefore = rssBytes();
});
after(async () => {
  await gw?.close();
});

const era = fc.constantFrom('modern', 'legacy') as fc.Arbitrary<'modern' | 'legacy'>;

test('read-only tools: schema-shaped and random arguments get a result or a stable error code', async () => {
  const safe = tools.filter((t) => t.readOnly);
  assert.ok(safe.length >= 10, `read-only tools: ${safe.map((t) => t.name).join(', ')}`);
  const call = fc.constantFrom(...safe).chain((t) => fc.tuple(fc.constant(t.name), fc.oneof(validish(t.schema), fc.jsonValue({ maxDepth: 3 }), fc.object({ maxDepth: 2 }))));
  await fc.assert(
    fc.asyncProperty(era, call, async (e, [name, args]) => {
      const reply = await toolCall(e, name, args);
      const problem = replyProblem(reply);
      assert.equal(problem, undefined, `${e} ${name} ${JSON.stringify(args).slice(0, 400)}: ${problem}`);
    }),
    fuzzParameters(6),
  );
});

test('tools that run, write or destroy refuse every invalid argument shape before anything starts', async () => {
  const guarded = tools.filter((t) => !t.readOnly);
  assert.ok(guarded.some((t) => t.name === 'terminal') && guarded.some((t) => t.name === 'execute_code'));
  // The execute_code pool is prepared at startup: wait until the process tree is still, then any
  // process that appears while the refused calls run is one they started.
  let settled = processes();
  await waitFor(async () => {
    await new Promise((r) => setTimeout(r, 300));
    const now = processes();
    const same = now.size === settled.size && [...now].every((p) => settled.has(p));
    settled = now;
    return same;
  }, 20_000, 'the worker tree to settle');
  const call = fc.constantFrom(...guarded).chain((t) => fc.tuple(fc.constant(t.name), invalidFor(t.schema)));
  await fc.assert(
    fc.asyncProperty(era, call, async (e, [name, args]) => {
      const reply = await toolCall(e, name, args);
      const result = toolResult(reply);
      const what = `${e} ${name} ${JSON.stringify(args).slice(0, 300)}: ${reply.text.slice(0, 300)}`;
      assert.equal(replyProblem(reply), undefined, what);
      assert.equal(result?.isError, true, what);
      assert.equal(result?.structuredContent?.error, 'INVALID_ARGUMENTS', what);
    }),
    fuzzParameters(8),
  );
  const started = [...processes()].filter((p) => !settled.has(p));
  assert.deepEqual(started, [], 'no process was started by a refused call');
});

test('afterwards the gateway still answers and its memory stayed bounded', async () => {
  const r = modernRequest('tools/call', { name: 'tool_search', arguments: { queries: ['terminal'] } });
  assert.equal(toolResult(await post(gw.mcpUrl, r.body, r.headers))?.isError, undefined);
  assert.deepEqual(gw.logs.filter((l) => l.event === 'http_unhandled_error' || (typeof l.level === 'number' && l.level >= 50)), []);
  const growth = rssBytes() - rssBefore;
  assert.ok(growth < RSS_GROWTH_BOUND, `RSS grew by ${Math.round(growth / 1048576)} MiB`);
});
