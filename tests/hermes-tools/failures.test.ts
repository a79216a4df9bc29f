import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { processStartTime } from '../../shared/proc.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../helpers/gateway.js';
import { toolServerReadiness, toolServerStandIn, type ToolServerStandIn } from '../helpers/hermes-tools.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// Hermes' tool server failing under a call: a slow call ends within its budget and the server
// keeps serving; a crash mid-call is an error naming the component, the server is restarted after
// its backoff (visible in /readyz) and the next call works; nothing is left once the gateway closes.

const temp = tempDirs();
const RESTART_MIN_MS = 400;
let gw: TestGateway;
let client: Client;
let standIn: ToolServerStandIn;

before(async () => {
  standIn = toolServerStandIn(temp.make('hmcp-tools-'));
  gw = await startTestGateway({
    env: { HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command },
    limits: { hermesToolsCallTimeoutSeconds: 1, hermesToolsRestartMinMs: RESTART_MIN_MS, hermesToolsRestartMaxSeconds: 5 },
  });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  temp.removeAll();
});

test('a slow call ends within its budget; the tool server keeps serving', async () => {
  const started = Date.now();
  const slow = await viaBridge(client, 'web_search', { query: 'slow:8000' });
  const elapsed = Date.now() - started;
  assert.equal(slow.data.error, 'HERMES_TOOLS_TIMEOUT');
  assert.match(String(slow.data.message), /within 1 s \(hermesToolsCallTimeoutSeconds\)/);
  assert.ok(elapsed < 4000, `${elapsed} ms`);
  const next = await viaBridge(client, 'web_search', { query: 'after slow' });
  assert.equal(next.data.success, true);
  assert.equal(standIn.starts().length, 1, 'not restarted');
});

test('a crash mid-call: a bounded error naming the component, a restart after the backoff, and the next call works', async () => {
  const first = standIn.starts()[0]!;
  const crashed = await viaBridge(client, 'web_search', { query: 'crash' });
  const answeredAt = Date.now();
  assert.equal(crashed.isError, true);
  assert.equal(crashed.data.error, 'HERMES_TOOLS_FAILED');
  assert.match(String(crashed.data.message), /hermes_tools.*exited during the web_search call.*restarted in 1 s/);
  assert.equal(crashed.data.component, 'hermes_tools');

  const restarting = await toolServerReadiness(gw.url);
  assert.equal(restarting.hermesTools.ready, false);
  assert.equal(restarting.hermesTools.status, 'restarting');
  assert.match(restarting.hermesTools.reason ?? '', /after an exit/);

  const up = await waitFor(async () => {
    const r = await toolServerReadiness(gw.url);
    return r.hermesTools.ready ? r : undefined;
  }, 10_000, 'the tool server back up');
  assert.equal(up.hermesTools.details?.restarts, 1);
  const second = standIn.starts()[1]!;
  assert.notEqual(second.pid, first.pid);
  assert.ok(second.at - answeredAt >= RESTART_MIN_MS - 150, `restarted ${second.at - answeredAt} ms after the crash`);

  const next = await viaBridge(client, 'web_search', { query: 'after crash' });
  assert.equal(next.data.success, true);
});

test('nothing survives the gateway: no tool server, no worker', async () => {
  const live = standIn.live();
  assert.equal(live.length, 1, 'one tool server runs');
  const worker = gw.hermesTools.worker.pid!;
  const workerStart = processStartTime(worker);
  await gw.close();
  await waitFor(() => standIn.live().length === 0, 5000, 'the tool server gone');
  assert.ok(workerStart === undefined || processStartTime(worker) !== workerStart, 'the Hermes tools worker is gone');
});
