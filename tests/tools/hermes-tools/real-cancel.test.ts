import assert from 'node:assert/strict';
import { test } from 'node:test';
import { abortableToolCall, viaBridge } from '../../helpers/gateway.js';
import { toolServerReadiness } from '../../helpers/hermes-tools.js';
import { mcpTwo } from '../../helpers/real-hermes-tools.js';
import { waitFor } from '../../helpers/wait.js';
import { realToolsSuite } from './fixture.js';

// Cancelling calls on Hermes' real tool server, whose upstream is a slow Firecrawl. On mcp 1.x
// (Hermes 0.19.0's FastMCP) the server runs each Hermes tool synchronously on its event loop, so it
// reads nothing — a ping, a cancel — until the call ends, and a cancel of a request it has read but
// not started crashes it. So the worker sends one request at a time: a queued call cancelled by its
// client never reaches the server; a readiness probe during a call reports the call instead of
// pinging; and after a cancelled or timed-out call the server must answer a ping within
// hermesToolsStuckPingMs, else it is restarted — which is what finally stops the upstream request
// (Firecrawl sees its client go away). On mcp 2.x (Hermes 0.22.2's MCPServer) the server answers a
// ping at once while a call runs, and a cancelled Hermes call keeps running inside it to its end:
// the worker's lane (one request at a time, kept for both) is free again at once, nothing is
// restarted, and the upstream request is answered, not ended.

const STUCK_PING_MS = 2500;

const suite = realToolsSuite('hmcp-real-cancel-', {
  limits: { hermesToolsCallTimeoutSeconds: 3, hermesToolsStuckPingMs: STUCK_PING_MS, hermesToolsRestartMinMs: 300, hermesToolsRestartMaxSeconds: 5 },
  }, { webReady: true });

const firecrawlSaw = (query: string) => suite.real.firecrawl.requests.find((q) => q.body?.query === query);

test('a queued call its client cancels never reaches the tool server; a probe during a call reports it, and nothing crashes', async () => {
  const first = viaBridge(suite.client, 'web_search', { query: 'slow:2500' });
  await waitFor(() => firecrawlSaw('slow:2500'), 20_000, 'the first call at Firecrawl');
  const queued = abortableToolCall(suite.real.gw.mcpUrl, 'web_search', { query: 'queued' });
  const during = await toolServerReadiness(suite.real.gw.url);
  assert.equal(during.hermesTools.ready, true, JSON.stringify(during.hermesTools));
  assert.deepEqual((during.hermesTools.details?.busy as { tool: string }).tool, 'web_search');
  await new Promise((r) => setTimeout(r, 300));
  queued.abort();
  assert.equal(await queued.done, 'aborted');
  assert.equal((await first).data.success, true);
  const next = await viaBridge(suite.client, 'web_search', { query: 'after the queued cancel' });
  assert.equal(next.data.success, true);
  assert.equal(firecrawlSaw('queued'), undefined, 'the cancelled call was never sent');
  const ready = await toolServerReadiness(suite.real.gw.url);
  assert.equal(ready.hermesTools.details?.restarts, 0, 'the tool server did not crash');
});

test('a call past its budget is cancelled; a tool server that comes back from it keeps serving', async () => {
  // Past the 3 s budget: on mcp 1.x by less than hermesToolsStuckPingMs (the server comes back in
  // time to answer the settling ping); on mcp 2.x long enough that the next call is over before it.
  const slowQuery = mcpTwo() ? 'slow:6000' : 'slow:3800';
  const started = performance.now();
  const slow = await viaBridge(suite.client, 'web_search', { query: slowQuery });
  assert.equal(slow.data.error, 'HERMES_TOOLS_TIMEOUT', JSON.stringify(slow.data));
  assert.match(String(slow.data.message), /within 3 s \(hermesToolsCallTimeoutSeconds\); the call was cancelled on the tool server/);
  assert.ok(performance.now() - started < 3000 + 2000, `answered after ${performance.now() - started} ms`);
  const next = await viaBridge(suite.client, 'web_search', { query: 'after the timeout' });
  const nextDone = Date.now();
  assert.equal(next.data.success, true);
  // Hermes finishes the call it could not stop (neither server aborts a running Hermes tool).
  const request = await waitFor(() => (firecrawlSaw(slowQuery)?.answeredAt ? firecrawlSaw(slowQuery) : undefined), 10_000, 'the slow Firecrawl request answered');
  assert.equal(request.abortedAt, undefined);
  if (mcpTwo()) assert.ok(nextDone < request.answeredAt!, 'mcp 2.x: the next call was served while the cancelled one still ran inside Hermes');
  else assert.ok(nextDone >= request.answeredAt!, "mcp 1.x: the next call waited for the cancelled one (its loop never read the cancel in time)");
  assert.equal((await toolServerReadiness(suite.real.gw.url)).hermesTools.details?.restarts, 0);
});

test('a cancelled call the tool server cannot leave: on mcp 1.x past hermesToolsStuckPingMs it is restarted, which ends the upstream request', { skip: mcpTwo() && 'mcp 2.x answers the ping at once: the next test' }, async () => {
  const slow = abortableToolCall(suite.real.gw.mcpUrl, 'web_search', { query: 'slow:60000' });
  await waitFor(() => firecrawlSaw('slow:60000'), 20_000, 'the call at Firecrawl');
  const abortedAt = Date.now();
  slow.abort();
  assert.equal(await slow.done, 'aborted');
  const request = await waitFor(() => (firecrawlSaw('slow:60000')?.abortedAt ? firecrawlSaw('slow:60000') : undefined), 15_000, 'the Firecrawl request ended by its client');
  const after = request.abortedAt! - abortedAt;
  assert.ok(after >= STUCK_PING_MS - 200 && after < STUCK_PING_MS + 5000, `the upstream request ended ${after} ms after the cancel`);
  const back = await waitFor(async () => {
    const r = await toolServerReadiness(suite.real.gw.url);
    return r.hermesTools.ready && r.hermesTools.details?.restarts === 1 ? r : undefined;
  }, 30_000, 'the tool server restarted');
  assert.match(String(back.hermesTools.details?.last_failure), /no answer to a ping within 2500 ms \(hermesToolsStuckPingMs\) after the web_search call, cancelled because its client cancelled it: killed as stuck/);
  const next = await viaBridge(suite.client, 'web_search', { query: 'after the restart' });
  assert.equal(next.data.success, true);
  assert.deepEqual(suite.real.egress, []);
});

test('a cancelled call on mcp 2.x: the tool server answers the ping at once, so it is not restarted; the next call is served while Hermes finishes the cancelled one', { skip: !mcpTwo() && 'mcp 1.x cannot answer the ping: the test before' }, async () => {
  const slow = abortableToolCall(suite.real.gw.mcpUrl, 'web_search', { query: 'slow:8000' });
  await waitFor(() => firecrawlSaw('slow:8000'), 20_000, 'the call at Firecrawl');
  slow.abort();
  assert.equal(await slow.done, 'aborted');
  const next = await viaBridge(suite.client, 'web_search', { query: 'after the cancel' });
  assert.equal(next.data.success, true);
  assert.equal(firecrawlSaw('slow:8000')!.answeredAt, undefined, 'served before the cancelled call ended');
  const r = await toolServerReadiness(suite.real.gw.url);
  assert.deepEqual([r.hermesTools.ready, r.hermesTools.details?.state, r.hermesTools.details?.restarts], [true, 'up', 0], JSON.stringify(r.hermesTools));
  const request = await waitFor(() => (firecrawlSaw('slow:8000')?.answeredAt ? firecrawlSaw('slow:8000') : undefined), 15_000, 'the cancelled call finished inside Hermes');
  assert.equal(request.abortedAt, undefined, 'the upstream request was answered, not ended');
  assert.equal((await toolServerReadiness(suite.real.gw.url)).hermesTools.details?.restarts, 0);
  assert.deepEqual(suite.real.egress, []);
});
