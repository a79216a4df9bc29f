import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { childrenOf } from '../../../shared/proc.js';
import { connect, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { graphReadiness, inspect, standIn, type StandIn } from '../../helpers/graph.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// What goes wrong with an upstream session, and what the caller gets: an upstream that crashes
// mid-call and one that runs past the call budget (1 s here) each give a bounded GRAPH_* error, the
// session's upstream is gone, and the next call on that root starts a fresh session. A graph worker
// that dies takes its upstreams with it and is replaced on the next request; a wedged one turns the
// readiness probe into an error within its bound instead of hanging /readyz.

const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let up: StandIn;
let root: string;
let project: string;
const LOOKUP = { request: { type: 'lookup' } };

before(async () => {
  root = realpathSync(dirs.make('hmcp-graph-fail-'));
  mkdirSync((project = join(root, 'p')));
  up = standIn(dirs.make('hmcp-graph-rec-'));
  gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: root, HERMES_MCP_GRAPH_COMMAND: up.command, HERMES_MCP_GRAPH_CALL_TIMEOUT_SECONDS: '1' } });
  client = await connect(gw.mcpUrl, 'modern');
});
after(async () => {
  await client?.close();
  await gw?.close();
  dirs.removeAll();
});

const startsIn = (cwd: string) => up.starts().filter((s) => s.cwd === cwd).length;
const liveIn = (cwd: string) => up.live().filter((p) => p.cwd === cwd);

test('an upstream that crashes mid-call gives GRAPH_UPSTREAM_FAILED at once, and the next call gets a fresh session', async () => {
  assert.equal((await inspect(client, project, LOOKUP)).isError, false);
  const [first] = liveIn(project);
  const started = performance.now();
  const crashed = await inspect(client, project, { question: 'crash', ...LOOKUP });
  assert.equal(crashed.data.error, 'GRAPH_UPSTREAM_FAILED', JSON.stringify(crashed.data));
  assert.match(String(crashed.data.message), /exited during the call/);
  assert.ok(performance.now() - started < 900, `answered in ${performance.now() - started} ms, not at the call budget`);
  const next = await inspect(client, project, LOOKUP);
  assert.equal(next.isError, false, JSON.stringify(next.data));
  assert.equal(startsIn(project), 2, 'a fresh upstream for the next call');
  assert.notEqual(liveIn(project)[0]?.pid, first?.pid);
});

test('a call past the budget gives GRAPH_TIMEOUT after graphCallTimeoutSeconds; its upstream is killed and the next call gets a fresh one', async () => {
  const [stuck] = liveIn(project);
  assert.ok(stuck, 'a resident session to time out');
  const started = performance.now();
  const late = await inspect(client, project, { question: 'sleep:8000', ...LOOKUP });
  const elapsed = performance.now() - started;
  assert.equal(late.data.error, 'GRAPH_TIMEOUT', JSON.stringify(late.data));
  assert.match(String(late.data.message), /graphCallTimeoutSeconds/);
  assert.ok(elapsed >= 900 && elapsed < 3000, `answered after ${elapsed} ms`);
  await waitFor(() => !up.live().some((p) => p.pid === stuck.pid), 2000, 'the timed-out upstream to be gone');
  const before = startsIn(project);
  assert.equal((await inspect(client, project, LOOKUP)).isError, false);
  assert.equal(startsIn(project), before + 1);
});

test('a graph worker that dies takes its upstreams with it and is replaced on the next call', async () => {
  const launcher = gw.graph.worker.pid!;
  const upstreams = up.live();
  assert.ok(upstreams.length >= 2, JSON.stringify(upstreams));
  process.kill(launcher, 'SIGKILL');
  await waitFor(() => up.live().length === 0, 5000, 'the upstreams to die with their worker');
  const after = await inspect(client, project, LOOKUP);
  assert.equal(after.isError, false, JSON.stringify(after.data));
  assert.notEqual(gw.graph.worker.pid, launcher, 'a new worker');
});

test('a wedged graph worker: /readyz answers within its bound with a graph error, and the next probe recovers', async () => {
  assert.equal((await graphReadiness(gw.url)).graph.status, 'ok');
  const launcher = gw.graph.worker.pid!;
  // Under the PID-namespace prefix the spawned process is the launcher; the worker is its child.
  const [workerPid] = childrenOf(launcher);
  process.kill(workerPid ?? launcher, 'SIGSTOP');
  const started = performance.now();
  const wedged = await graphReadiness(gw.url);
  assert.ok(performance.now() - started < 4500, `answered in ${performance.now() - started} ms`);
  assert.equal(wedged.graph.ready, false);
  assert.equal(wedged.graph.status, 'error', JSON.stringify(wedged.graph));
  const recovered = await waitFor(async () => {
    const r = await graphReadiness(gw.url);
    return r.graph.status === 'ok' ? r : undefined;
  }, 10_000, 'a fresh worker to answer the probe');
  assert.equal(recovered.graph.ready, true);
  assert.notEqual(gw.graph.worker.pid, launcher);
});
