import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { graphReadiness, inspect, standIn, type StandIn } from '../../helpers/graph.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// inspect_code_graph over the stand-in upstream: one resident session per project root, reused by
// every later call on that root; at most graphMaxSessions (3 here: the schema root plus two) with
// the least recently used idle one evicted for a new root, never a busy one; GRAPH_BUSY at once
// when every session is busy; a cwd outside the roots refused before any upstream starts.

const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let up: StandIn;
let root: string;
const project: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };
const LOOKUP = { request: { type: 'lookup' } };

before(async () => {
  root = realpathSync(dirs.make('hmcp-graph-roots-'));
  for (const name of ['a', 'b', 'c'] as const) mkdirSync((project[name] = join(root, name)));
  up = standIn(dirs.make('hmcp-graph-rec-'));
  gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: root, HERMES_MCP_GRAPH_COMMAND: up.command, HERMES_MCP_GRAPH_MAX_SESSIONS: '3' } });
  client = await connect(gw.mcpUrl, 'modern');
});
after(async () => {
  await client?.close();
  await gw?.close();
  dirs.removeAll();
});

const startsIn = (cwd: string) => up.starts().filter((s) => s.cwd === cwd).length;
const busyRoots = async () => {
  const reply = await gw.graph.worker.request({ type: 'status' }, 5000);
  return 'sessions' in reply ? reply.sessions.filter((s) => s.busy).map((s) => s.root) : [];
};

test('two project roots get two resident upstream sessions, each in its own root, reused by later calls without another spawn or tools/list', async () => {
  for (const cwd of [project.a, project.b, project.a, project.b]) {
    const { result, data, isError } = await inspect(client, cwd, { question: 'where is main', ...LOOKUP });
    assert.equal(isError, false, JSON.stringify(data));
    assert.equal(data.cwd, cwd, 'the upstream ran in the project root');
    assert.deepEqual(data.arguments, { question: 'where is main', ...LOOKUP }, 'cwd is the gateway routing argument, not forwarded');
    assert.ok(result.content.some((b) => b.text === `stand-in answer from ${cwd}`), 'the upstream text content passes through beside structuredContent');
  }
  assert.deepEqual(up.starts().map((s) => s.cwd), [root, project.a, project.b], 'the schema root at startup, then one upstream per project root');
  assert.equal(up.lists(), 3, 'one tools/list per session (its surface check), none per call');
  assert.deepEqual(up.live().map((p) => p.cwd).sort(), [root, project.a, project.b].sort());
});

test('a cwd outside the roots, a relative one, a symlink out of a root and a file are refused before anything starts', async () => {
  const before = up.starts().length;
  const outside = realpathSync(dirs.make('hmcp-graph-outside-'));
  symlinkSync(outside, join(root, 'escape'));
  writeFileSync(join(root, 'notes.txt'), 'x');
  for (const cwd of [outside, 'a', join(root, 'escape'), join(root, '..')]) {
    const { data, isError } = await inspect(client, cwd, LOOKUP);
    assert.equal(isError, true);
    assert.equal(data.error, 'PATH_OUTSIDE_ROOTS', `${cwd}: ${JSON.stringify(data)}`);
  }
  const file = await inspect(client, join(root, 'notes.txt'), LOOKUP);
  assert.equal(file.data.error, 'INVALID_PATH', JSON.stringify(file.data));
  assert.equal(up.starts().length, before, 'no upstream was started for a refused cwd');
});

test('LRU eviction skips a busy session: the idle one goes, the busy call finishes on its own session', async () => {
  assert.equal((await inspect(client, project.a, LOOKUP)).isError, false);
  assert.equal((await inspect(client, project.b, LOOKUP)).isError, false); // a is now the least recently used
  const long = inspect(client, project.a, { question: 'sleep:1500', ...LOOKUP });
  await waitFor(async () => (await busyRoots()).includes(project.a), 5000, 'the long call to hold a');
  const c = await inspect(client, project.c, LOOKUP);
  assert.equal(c.isError, false, JSON.stringify(c.data));
  const finished = await long;
  assert.equal(finished.isError, false, `the busy session was not evicted: ${JSON.stringify(finished.data)}`);
  await waitFor(() => !up.live().some((p) => p.cwd === project.b), 5000, 'the evicted upstream (b) to exit');
  assert.deepEqual(up.live().map((p) => p.cwd).sort(), [root, project.a, project.c].sort());
  assert.equal((await inspect(client, project.a, LOOKUP)).isError, false);
  assert.equal(startsIn(project.a), 1, 'a kept its one session throughout');
  assert.equal(startsIn(project.b), 1, 'b has not been reopened yet');
});

test('every session busy: a new root is refused with GRAPH_BUSY at once, and /readyz does not wait for the calls', async () => {
  const longs = [root, project.a, project.c].map((cwd) => inspect(client, cwd, { question: 'sleep:2000', ...LOOKUP }));
  await waitFor(async () => (await busyRoots()).length === 3, 5000, 'three busy sessions');
  const started = performance.now();
  const refused = await inspect(client, project.b, LOOKUP);
  assert.equal(refused.data.error, 'GRAPH_BUSY', JSON.stringify(refused.data));
  assert.match(String(refused.data.message), /graphMaxSessions/);
  const readiness = await graphReadiness(gw.url);
  assert.ok(performance.now() - started < 1000, `answered in ${performance.now() - started} ms, not after the calls`);
  assert.equal(readiness.graph.ready, true, JSON.stringify(readiness.graph));
  assert.equal(readiness.graph.details?.busy, true, 'the probe reported the last known state of a busy schema session');
  for (const r of await Promise.all(longs)) assert.equal(r.isError, false, JSON.stringify(r.data));
  assert.equal(startsIn(project.b), 1, 'the refused root started nothing');
});
