import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { raw } from '../../helpers/auth.js';
import { call, connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// GET /metrics: Prometheus text for the local operator. Counters move with calls, labels stay in a
// closed set (an unknown tool name is "other", never a new series), each gateway instance counts
// only its own traffic, and the public name never gets it.

const PUBLIC = 'hermes.example.test';
let gw: TestGateway;
let other: TestGateway;
let client: Client;
before(async () => {
  [gw, other] = await Promise.all([startTestGateway(), startTestGateway()]);
  client = await connect(gw.mcpUrl, 'modern');
});
after(async () => {
  await client.close();
  await Promise.all([gw.close(), other.close()]);
});

async function scrape(target: TestGateway): Promise<string> {
  const res = await fetch(`${target.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one series (0 when absent). */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

test('counters and histograms move with calls, by tool and outcome', async () => {
  const before = await scrape(gw);
  const search = 'hermes_mcp_requests_total{tool="tool_search",outcome="ok"}';
  for (let i = 0; i < 3; i++) assert.equal((await call(client, 'tool_search', { queries: ['read a file'] })).isError, false);
  await viaBridge(client, 'read_file', { path: '/nonexistent/outside/roots' });
  const after = await scrape(gw);
  assert.equal(value(after, search) - value(before, search), 3);
  assert.equal(value(after, 'hermes_mcp_request_duration_seconds_count{tool="tool_search",outcome="ok"}') - value(before, 'hermes_mcp_request_duration_seconds_count{tool="tool_search",outcome="ok"}'), 3);
  // tool_call is counted under the deferred tool it ran, with its error code as the outcome.
  assert.match(after, /hermes_mcp_requests_total\{tool="read_file",outcome="error:[A-Z_]+"\} 1/);
  for (const family of ['hermes_mcp_inflight_requests', 'hermes_mcp_inflight_native_calls', 'hermes_mcp_workers', 'hermes_mcp_worker_spawns_total', 'hermes_mcp_job_admission_rejections_total']) {
    assert.match(after, new RegExp(`^# TYPE ${family} `, 'm'), family);
  }
  assert.match(after, /^hermes_mcp_jobs\{state="unknown"\} 0$/m);
  assert.match(after, /^hermes_mcp_component_ready\{component="startup_files",required="true"\} 1$/m);
  assert.match(after, /^hermes_mcp_component_ready\{component="browser",required="false"\} 0$/m);
  // Another gateway in the same process has its own registry: none of these calls are its.
  assert.equal(value(await scrape(other), search), 0);
});

test('an unknown tool name never becomes a label value', async () => {
  const names = ['made_up_tool_4f1c', 'another_unknown_9a2b'];
  for (const name of names) {
    assert.equal((await call(client, name)).data.error, 'UNKNOWN_TOOL');
    await viaBridge(client, name);
  }
  const text = await scrape(gw);
  for (const name of names) assert.ok(!text.includes(name), `${name} must not appear in /metrics`);
  assert.match(text, /hermes_mcp_requests_total\{tool="other",outcome="error:UNKNOWN_TOOL"\} 2/);
});

test('a request through the public name is refused', async () => {
  const pub = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${PUBLIC}` } });
  try {
    const local = await raw(pub.url, '/metrics', { host: `127.0.0.1:${pub.port}` });
    assert.equal(local.status, 200);
    assert.match(local.body, /hermes_mcp_requests_total/);
    for (const [host, headers] of [[PUBLIC, {}], [`127.0.0.1:${pub.port}`, { 'x-forwarded-for': '198.51.100.4' }]] as Array<[string, Record<string, string>]>) {
      const res = await raw(pub.url, '/metrics', { host, headers });
      assert.equal(res.status, 403, host);
      assert.ok(!res.body.includes('hermes_mcp_'), 'no metric leaves through the public name');
    }
  } finally {
    await pub.close();
  }
});
