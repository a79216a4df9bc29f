import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeBridgeFixture, type BridgeFixture } from '../../helpers/bridge.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// A sync task whose agent refuses or breaks still leaves a durable result.json (status "failed",
// with the error code) for hermes_result: Hermes' max_concurrent_runs 429 (a retryable agent_busy
// naming Retry-After), a 502 agent_incomplete, an unreachable agent, and a 200 chat completion
// whose finish_reason is "error". Stand-in (Hermes API): for the 502 agent_incomplete (a failed run
// without any answer text, which the real server gives no way to ask for) and exact timings; the
// 429 and finish_reason "error" are also run on real Hermes in real-hermes.test.ts.

type Structured = Record<string, unknown> & { details?: Record<string, unknown> };

describe('bridge tasks whose agent fails', () => {
  const temp = tempDirs();
  let fx: BridgeFixture;
  let gw: TestGateway;
  before(async () => {
    fx = await makeBridgeFixture(temp.make('hmcp-upstream-'), { standin: { maxConcurrent: 1, chatDelayMs: 500 } });
    gw = await startTestGateway({ env: fx.env, limits: { bridgeRateLimitPerMinute: 10_000 } });
  });
  after(async () => {
    await gw.close();
    await fx.close();
    temp.removeAll();
  });

  async function call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: Structured }> {
    const r = await fetch(`${gw.url}/bridge/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fx.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    const body = (await r.json()) as { result: { isError?: boolean; structuredContent: Structured } };
    return { isError: body.result.isError === true, data: body.result.structuredContent };
  }
  const stored = (id: string) => JSON.parse(readFileSync(join(fx.tasksDir, id, 'result.json'), 'utf8')) as Structured;

  test('429 max_concurrent_runs: agent_busy, retryable with Retry-After, result failed', async () => {
    const [a, b] = await Promise.all([call('hermes_task', { task: 'one', mode: 'sync', id: 'busy-a' }), call('hermes_task', { task: 'two', mode: 'sync', id: 'busy-b' })]);
    const busy = [a, b].find((r) => r.isError)!;
    const done = [a, b].find((r) => !r.isError)!;
    assert.ok(busy && done, JSON.stringify([a, b]));
    assert.equal(done.data.status, 'completed');
    assert.equal(busy.data.error, 'agent_busy');
    assert.equal(busy.data.retryable, true);
    assert.equal(busy.data.retry_after_seconds, 1);
    assert.match(String(busy.data.message), /retry in 1 s/);
    const id = busy === a ? 'busy-a' : 'busy-b';
    assert.equal(busy.data.id, id);
    const result = await call('hermes_result', { id });
    assert.equal(result.data.status, 'failed');
    assert.match(String(result.data.summary), /HTTP 429/);
    assert.equal(result.data.details?.error, 'AGENT_BUSY');
    assert.equal(stored(id).status, 'failed');
  });

  test('an async submission refused with 429 is agent_busy too, and records no run', async () => {
    // The async submission goes once the stand-in is answering the sync chat (it takes 500 ms), not
    // after a fixed pause a loaded host may outrun.
    const seen = fx.standin.calls.length;
    const [a, b] = await Promise.all([call('hermes_task', { task: 'slow', mode: 'sync', id: 'busy-c' }), (async () => {
      await waitFor(() => fx.standin.calls.slice(seen).some((c) => c.path.includes('/chat/completions')), 10_000, 'the sync chat to reach the agent');
      return call('hermes_task', { task: 'queued', mode: 'async', id: 'busy-d' });
    })()]);
    assert.equal(a.data.status, 'completed');
    assert.equal(b.data.error, 'agent_busy');
    assert.ok(!existsSync(join(fx.tasksDir, 'busy-d', 'run.json')));
  });

  test('502 agent_incomplete: upstream_failed naming the reason in the body, result failed', async () => {
    const r = await call('hermes_task', { task: 'INCOMPLETE please', mode: 'sync', id: 'inc-1' });
    assert.equal(r.data.error, 'upstream_failed');
    assert.match(String(r.data.message), /HTTP 502 \(agent_incomplete\): the agent stopped on purpose/);
    const result = stored('inc-1');
    assert.equal(result.status, 'failed');
    assert.equal(result.details?.error, 'UPSTREAM_FAILED');
    assert.equal(result.details?.http_status, 502);
  });

  test('finish_reason "error": the task answers failed and hermes_result finds it', async () => {
    const r = await call('hermes_task', { task: 'FAIL please', mode: 'sync', id: 'err-1' });
    assert.equal(r.isError, false);
    assert.equal(r.data.status, 'failed');
    const result = await call('hermes_result', { id: 'err-1' });
    assert.equal(result.data.status, 'failed');
    assert.match(String(result.data.summary), /failed on purpose/);
    assert.equal(result.data.details?.finish_reason, 'error');
  });

  test('an unreachable agent: agent_unavailable, result failed', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    fx.writeAgents(`agents:\n  - name: hermes\n    base_url: ${fx.standin.url}\n    key_env: API_SERVER_KEY\n  - name: gone\n    base_url: http://127.0.0.1:${port}\n    key_env: API_SERVER_KEY\n`);
    const r = await call('hermes_task', { task: 'hello', mode: 'sync', id: 'down-1', agent: 'gone' });
    assert.equal(r.data.error, 'agent_unavailable');
    const result = stored('down-1');
    assert.equal(result.status, 'failed');
    assert.equal(result.details?.error, 'AGENT_UNAVAILABLE');
    assert.equal(result.details?.unavailable_reason, 'unreachable');
  });
});
