import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureSource } from '../../helpers/fixtures.js';
import { abortableToolCall, rawPost, startTestGateway } from '../../helpers/gateway.js';

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('modern era: a client disconnect cancels the call, and native work stays counted until it really ends', async () => {
  const fixture = fixtureSource();
  const gw = await startTestGateway({ adapters: [{ name: 'fixture', source: fixture.source }] });
  try {
    const call = abortableToolCall(gw.mcpUrl, 'fixture_hold', {});
    await until(() => fixture.probe.started === 1);
    const health = async () => (await (await fetch(`${gw.url}/healthz`)).json()) as { inflight_native_calls: number; inflight_requests: number };
    assert.equal((await health()).inflight_native_calls, 1);
    call.abort();
    assert.equal(await call.done, 'aborted');
    await until(() => fixture.probe.aborted === 1);
    const h = await health();
    assert.equal(h.inflight_native_calls, 1, 'the waiter is gone but the native work has not finished');
    fixture.probe.releaseHolds();
    await until(() => gw.gateway.owners.inflightNativeCalls === 0);
  } finally {
    fixture.probe.releaseHolds();
    await gw.close();
  }
});

test('legacy era: an HTTP disconnect mid-call also cancels the call', async () => {
  const fixture = fixtureSource();
  const gw = await startTestGateway({ adapters: [{ name: 'fixture', source: fixture.source }] });
  try {
    const init = await rawPost(
      gw.mcpUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    );
    const sid = init.headers.get('mcp-session-id')!;
    const controller = new AbortController();
    const pending = fetch(gw.mcpUrl, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tool_call', arguments: { calls: [{ name: 'fixture_hold' }] } } }),
    }).catch(() => 'aborted');
    await until(() => fixture.probe.started === 1);
    controller.abort();
    await pending;
    await until(() => fixture.probe.aborted === 1);
    assert.equal(gw.gateway.owners.leaseCount(`legacy:${sid}`), 1, 'the session keeps its lease until the work completes');
    fixture.probe.releaseHolds();
    await until(() => gw.gateway.owners.leaseCount(`legacy:${sid}`) === 0);
  } finally {
    fixture.probe.releaseHolds();
    await gw.close();
  }
});
