import assert from 'node:assert/strict';
import { test } from 'node:test';
import { processStartTime } from '../../../shared/proc.js';
import { viaBridge } from '../../helpers/gateway.js';
import { toolServerReadiness } from '../../helpers/hermes-tools.js';
import { waitFor } from '../../helpers/wait.js';
import { realToolsSuite } from './fixture.js';

// Hermes' real tool server killed in the middle of a call (SIGKILL on its pid, as an OOM kill
// would): that call answers a stable HERMES_TOOLS_FAILED naming the component and the restart;
// /readyz shows it restarting; after hermesToolsRestartMinMs a new tool server serves the next
// call; and nothing is left once the gateway closes.

const RESTART_MIN_MS = 1500;

const suite = realToolsSuite('hmcp-real-crash-', { limits: { hermesToolsRestartMinMs: RESTART_MIN_MS, hermesToolsRestartMaxSeconds: 10 } });

test('killed mid-call: a stable error for that call, a restart after the backoff, and the next call is served', async () => {
  const [pid] = suite.real.toolServerPids();
  assert.ok(pid, 'the real tool server runs');
  const pending = viaBridge(suite.client, 'web_search', { query: 'slow:30000' });
  await waitFor(() => suite.real.firecrawl.requests.some((q) => q.body?.query === 'slow:30000'), 20_000, 'the call at Firecrawl');
  process.kill(pid, 'SIGKILL');
  const killedAt = performance.now();
  const crashed = await pending;
  assert.equal(crashed.isError, true);
  assert.equal(crashed.data.error, 'HERMES_TOOLS_FAILED');
  assert.equal(crashed.data.component, 'hermes_tools');
  assert.match(String(crashed.data.message), /Hermes' tool server \(\/readyz hermes_tools\) exited during the web_search call; it is restarted in 2 s$/);

  const restarting = await toolServerReadiness(suite.real.gw.url);
  assert.equal(restarting.hermesTools.status, 'restarting');
  assert.match(restarting.hermesTools.reason ?? '', /after an exit/);

  const replaced = await waitFor(() => suite.real.toolServerPids().find((p) => p !== pid), 30_000, 'a new tool server');
  const startedAfter = performance.now() - killedAt;
  assert.ok(startedAfter >= RESTART_MIN_MS - 200, `a new tool server ${startedAfter} ms after the kill`);
  await waitFor(async () => (await toolServerReadiness(suite.real.gw.url)).hermesTools.ready, 60_000, 'the new tool server up');
  const next = await viaBridge(suite.client, 'web_search', { query: 'after the kill' });
  assert.equal(next.data.success, true, JSON.stringify(next.data));
  assert.equal((await toolServerReadiness(suite.real.gw.url)).hermesTools.details?.restarts, 1);
  assert.deepEqual(suite.real.toolServerPids(), [replaced]);
});

test('nothing survives the gateway: no tool server', async () => {
  const pids = suite.real.toolServerPids();
  const starts = pids.map(processStartTime);
  await suite.real.gw.close();
  await waitFor(() => suite.real.toolServerPids().length === 0, 10_000, 'the tool server gone');
  assert.ok(pids.every((p, i) => processStartTime(p) !== starts[i]));
});
