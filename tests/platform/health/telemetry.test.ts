import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { call, connect, ERAS, startTestGateway, viaBridge } from '../../helpers/gateway.js';

test('one log event per request: generated id, tool, elapsed ms, category; inbound id only as a truncated SHA-256', async () => {
  const gw = await startTestGateway();
  try {
    const inbound = 'client-request-id-123';
    const res = await fetch(`${gw.url}/healthz`, { headers: { 'x-request-id': inbound } });
    assert.equal(res.status, 200);
    const client = await connect(gw.mcpUrl, 'modern');
    const before = gw.logs.length;
    await call(client, 'tool_search', { queries: ['session'] });
    await client.close();
    const events = gw.logs.filter((l) => l.event === 'request');
    const health = events.find((e) => e.path === '/healthz')!;
    assert.equal(health.inbound_request_id_sha256, createHash('sha256').update(inbound).digest('hex').slice(0, 16));
    assert.ok(!gw.rawLog().includes(inbound));
    const search = gw.logs.slice(before).find((e) => e.tool === 'tool_search')!;
    assert.match(String(search.request_id), /^[0-9a-f-]{36}$/);
    assert.equal(search.category, 'ok');
    assert.equal(typeof search.elapsed_ms, 'number');
  } finally {
    await gw.close();
  }
});

test('arguments, tokens and raw headers never reach the log; errors are categorised by code', async () => {
  const gw = await startTestGateway();
  try {
    const client = await connect(gw.mcpUrl, 'modern');
    const opened = await viaBridge(client, 'session_open');
    const token = opened.data.session_token as string;
    await viaBridge(client, 'skill_view', { name: 'very-distinctive-argument-value' }, token);
    await viaBridge(client, 'skill_view', { name: 42 });
    await client.close();
    const raw = gw.rawLog();
    assert.ok(!raw.includes(token), 'token logged');
    assert.ok(!raw.includes('very-distinctive-argument-value'), 'arguments logged');
    assert.ok(!raw.toLowerCase().includes('user-agent'), 'headers logged');
    const calls = gw.logs.filter((l) => l.event === 'request' && l.tool === 'tool_call');
    assert.ok(calls.some((c) => c.target === 'skill_view' && c.category === 'error:INVALID_ARGUMENTS'));
    assert.ok(calls.some((c) => c.target === 'session_open' && c.category === 'ok'));
  } finally {
    await gw.close();
  }
});

test('both eras: the request event names the tool, the tool_call target and the outcome', async () => {
  const gw = await startTestGateway();
  try {
    for (const era of ERAS) {
      const client = await connect(gw.mcpUrl, era);
      const before = gw.logs.length;
      await call(client, 'tool_search', { queries: [`session ${era}`] });
      await viaBridge(client, 'skill_view', { name: 42 });
      await client.close();
      const events = gw.logs.slice(before).filter((l) => l.event === 'request');
      assert.ok(events.some((e) => e.tool === 'tool_search' && e.category === 'ok'), `${era}: tool_search recorded`);
      assert.ok(events.some((e) => e.tool === 'tool_call' && e.target === 'skill_view' && e.category === 'error:INVALID_ARGUMENTS'), `${era}: tool_call target recorded`);
    }
  } finally {
    await gw.close();
  }
});
