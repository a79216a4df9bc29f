import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, makeHermesHome, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { honchoJson } from '../../helpers/memory.js';

// tool_search over the product's own catalog: for a task phrased the way an agent phrases it, the
// tool that does that task ranks first (not a tool that is always refused, nor one that merely
// shares a word), and an exact tool name still ranks first.

const TASKS: ReadonlyArray<readonly [string, string]> = [
  ['run a long build in the background', 'job_prepare'],
  ['read a file', 'read_file'],
  ['search code for a string', 'search_files'],
  ['run a python script', 'execute_code'],
  ['remember a user preference', 'memory_conclude'],
  ['edit a file', 'patch'],
  ['run the test suite', 'job_prepare'],
  ['run a shell command', 'terminal'],
  ['search past conversations', 'session_search'],
  ['schedule a recurring task', 'cronjob'],
];

let gw: TestGateway;
before(async () => {
  // Memory configured (tool_search never calls Honcho, so nothing need answer at this address): its
  // tools rank for their tasks only where they can run. The agent-task and LSP tools are not configured.
  const home = makeHermesHome();
  writeFileSync(join(home, 'honcho.json'), JSON.stringify(honchoJson('http://127.0.0.1:9')));
  gw = await startTestGateway({ home });
});
after(async () => gw.close());

async function search(queries: string[], limit = 5): Promise<string[][]> {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const { data, isError } = await call(client, 'tool_search', { queries, limit });
    assert.equal(isError, false, JSON.stringify(data));
    return (data.results as Array<{ matches: string[] }>).map((r) => r.matches);
  } finally {
    await client.close();
  }
}

test('the working tool ranks first for the task it does', async () => {
  for (let i = 0; i < TASKS.length; i += 7) {
    const chunk = TASKS.slice(i, i + 7);
    const results = await search(chunk.map(([q]) => q));
    chunk.forEach(([query, expected], j) => assert.equal(results[j]![0], expected, `${query} → ${results[j]!.join(', ')}`));
  }
});

test('the always-refused delegate_task ranks below the job tools for background work, yet an exact name or a delegation query finds it first', async () => {
  const [background, exact, delegation] = await search(['run a long build in the background', 'delegate_task', 'delegate a task to a sub-agent'], 10);
  const refusedAt = background!.indexOf('delegate_task');
  assert.ok(refusedAt === -1 || refusedAt > background!.indexOf('job_prepare'), background!.join(', '));
  assert.equal(exact![0], 'delegate_task');
  assert.equal(delegation![0], 'delegate_task', 'its refusal says what to use instead, so it stays findable');
});

test('tools whose backend is not configured here (agent tasks, LSP) rank below every tool that can run', async () => {
  const unconfigured = new Set(gw.gateway.catalog.all().filter((e) => !e.configured).map((e) => e.tool.name));
  assert.ok(unconfigured.has('hermes_files') && unconfigured.has('lsp_status') && !unconfigured.has('memory_conclude'), [...unconfigured].join(', '));
  const results = await search(['read a file', 'run a shell command'], 15);
  for (const matches of results) {
    const firstUnconfigured = matches.findIndex((name) => unconfigured.has(name));
    assert.ok(firstUnconfigured > 0, matches.join(', '));
    assert.ok(matches.slice(firstUnconfigured).every((name) => unconfigured.has(name)), `a configured tool ranks after an unconfigured one: ${matches.join(', ')}`);
  }
});

test('an exact name ranks first even when it is also a keyword of another tool', async () => {
  const [terminal, patch, readFile] = await search(['terminal', 'patch', 'read_file'], 3);
  assert.equal(terminal![0], 'terminal');
  assert.equal(patch![0], 'patch');
  assert.equal(readFile![0], 'read_file');
});
