import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { makeBridgeFixture, type BridgeFixture } from '../../helpers/bridge.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor, within } from '../../helpers/wait.js';

// Shutdown covers the bridge: a sync task on either mount is an in-flight call (/healthz counts it,
// drain waits for it), both mounts refuse new requests with 503 + Retry-After while the gateway
// drains, and close() lets running tasks answer (up to shutdownGraceSeconds) before cutting.
// Stand-in (Hermes API): the drain needs a chat completion that takes a set time to answer.

const temp = tempDirs();
after(() => temp.removeAll());

async function start(name: string): Promise<{ fx: BridgeFixture; gw: TestGateway }> {
  const fx = await makeBridgeFixture(temp.make(name), { mcpPort: 0, standin: { chatDelayMs: 700 } });
  const gw = await startTestGateway({ env: fx.env, limits: { bridgeRateLimitPerMinute: 10_000, shutdownGraceSeconds: 5 } });
  return { fx, gw };
}

function post(url: string, token: string, message: Record<string, unknown>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', ...message }) });
}

/** A sync hermes_task; settles to its structuredContent, or to {thrown} when the connection is cut. */
function syncTask(url: string, token: string, id: string): Promise<Record<string, unknown>> {
  return post(url, token, { id: 1, method: 'tools/call', params: { name: 'hermes_task', arguments: { task: 'slow work', mode: 'sync', id } } })
    .then(async (r) => ((await r.json()) as { result: { structuredContent: Record<string, unknown> } }).result.structuredContent)
    .catch((e: Error) => ({ thrown: e.message }));
}

const chats = (fx: BridgeFixture) => fx.standin.calls.filter((c) => c.path === '/v1/chat/completions').length;

test('drain: a running bridge task counts as in flight, new requests on both mounts get 503 + Retry-After, drain ends after the task answered', async () => {
  const { fx, gw } = await start('hmcp-bridge-drain-');
  try {
    const task = syncTask(`${gw.bridgeUrl}/mcp`, fx.token, 'drain-1');
    await waitFor(() => chats(fx) === 1, 5000, 'the task to reach the agent');
    const reached = performance.now();
    const healthz = (await (await fetch(`${gw.url}/healthz`)).json()) as { inflight_native_calls: number };
    assert.equal(healthz.inflight_native_calls, 1, 'the sync task is an in-flight call');

    const drained = gw.drain(5000);
    for (const url of [`${gw.url}/bridge/mcp`, `${gw.bridgeUrl}/mcp`]) {
      const refused = await post(url, fx.token, { id: 2, method: 'ping' });
      assert.equal(refused.status, 503, url);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.match(((await refused.json()) as { error: { message: string } }).error.message, /shutting down/);
    }
    const outcome = await within(drained, 8000, 'the drain');
    // The agent takes 700 ms to answer: a drain over sooner did not wait for the task.
    assert.ok(performance.now() - reached >= 650, `drain waited for the task on the MCP_PORT listener (${performance.now() - reached} ms)`);
    assert.equal(outcome.drained, true);
    assert.equal((await task).status, 'completed');
  } finally {
    await gw.close();
    await fx.close();
  }
});

test('close: running tasks on both mounts get their real answer before connections are cut', async () => {
  const { fx, gw } = await start('hmcp-bridge-close-');
  try {
    const own = syncTask(`${gw.bridgeUrl}/mcp`, fx.token, 'close-own');
    const mounted = syncTask(`${gw.url}/bridge/mcp`, fx.token, 'close-mounted');
    await waitFor(() => chats(fx) === 2, 5000, 'both tasks to reach the agent');
    await within(gw.close(), 8000, 'close');
    assert.equal((await own).status, 'completed', JSON.stringify(await own));
    assert.equal((await mounted).status, 'completed', JSON.stringify(await mounted));
  } finally {
    await gw.close();
    await fx.close();
  }
});
