import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { defaultLimits } from '../../../shared/limits.js';
import type { ToolDefinition } from '../../../supervisor/core/tool-types.js';
import { bridgeProfileApp, type ProfileOptions } from '../../../supervisor/http/bridge-profile/profile.js';
import { createLogger } from '../../../supervisor/platform/telemetry.js';
import { CapabilityCache } from '../../../supervisor/tools/agent-tasks/capabilities.js';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import { AgentRegistry } from '../../../supervisor/tools/agent-tasks/registry.js';
import { resolveBridgeSettings } from '../../../supervisor/tools/agent-tasks/settings.js';
import { TaskStore } from '../../../supervisor/tools/agent-tasks/tasks.js';
import { tempDirs } from '../../helpers/temp.js';

// The bridge profile's Hono app, called with real Requests: its edge rules in their order (405,
// bearer, 415, 413, parse error), /health, the refusal while draining, the token re-read from the
// .env file, and the answer when the bridge is not configured. The five real tools, served on the
// gateway's port and MCP_PORT by a whole gateway: profile-gateway.test.ts.

const dirs = tempDirs();
after(() => dirs.removeAll());

const limits = { ...defaultLimits(), bridgeMaxBodyBytes: 200, bridgeRateLimitPerMinute: 10_000 };
const log = createLogger('silent');

const echo: ToolDefinition = {
  name: 'echo',
  description: 'Echo.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  handler: async (args) => ({ structured: { echoed: args.text } }),
};

function profile(refusing = () => false): { request: (path: string, init?: RequestInit) => Promise<Response>; token: string; envFile: string; audit: string; tracked: string[] } {
  const home = dirs.make('bridge-profile-');
  const token = randomBytes(32).toString('hex');
  const envFile = join(home, 'bridge.env');
  writeFileSync(envFile, `MCP_AUTH_TOKEN=${token}\nTASKS_DIR=${join(home, 'tasks')}\nAGENTS_FILE=${join(home, 'agents.yaml')}\nAUDIT_LOG=${join(home, 'audit.jsonl')}\n`, { mode: 0o600 });
  const resolution = resolveBridgeSettings(envFile, home, home);
  assert.equal(resolution.status, 'configured');
  if (resolution.status !== 'configured') throw new Error('unreachable');
  const { settings } = resolution;
  const tracked: string[] = [];
  const options: ProfileOptions = {
    state: {
      kind: 'configured',
      service: { settings, registry: new AgentRegistry(settings, {}), store: new TaskStore(settings.tasksDir, limits.bridgeResultMaxBytes), limits, capabilities: new CapabilityCache(60), release: new HermesRelease('0.22.2.post1') },
    },
    tools: [echo],
    limits,
    version: '9.9.9',
    log,
    refusing,
    refusal: () => new Response('draining', { status: 503, headers: { 'retry-after': '5' } }),
    track: (tool, _owner, work) => {
      tracked.push(tool.name);
      return work();
    },
  };
  const { app, audit } = bridgeProfileApp(options);
  assert.ok(audit);
  return { request: async (path, init) => app.request(path, init), token, envFile, audit: settings.auditLog, tracked };
}

const rpc = (token: string | undefined, body: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  body,
});

test('not configured: every path answers 503 with the reason', async () => {
  const { app, audit } = bridgeProfileApp({ state: { kind: 'not_configured', reason: 'set HERMES_MCP_BRIDGE_ENV' }, tools: [], limits, version: '1', log, refusing: () => false, refusal: () => new Response(null, { status: 503 }), track: (_t, _o, work) => work() });
  assert.equal(audit, undefined);
  for (const path of ['/mcp', '/health', '/anything']) {
    const res = await app.request(path);
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { status: 'not_configured', service: 'hermes-mcp-bridge', reason: 'set HERMES_MCP_BRIDGE_ENV' });
  }
});

test('/health names the service, version, tools and the synthetic default agent; HEAD too', async () => {
  const p = profile();
  const res = await p.request('/health');
  assert.equal(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.status, 'ok');
  assert.equal(body.service, 'hermes-mcp-bridge');
  assert.equal(body.version, '9.9.9');
  assert.equal(body.tools, 1);
  assert.equal((body.agents as { count: number }).count, 1);
  assert.equal((await p.request('/health', { method: 'HEAD' })).status, 200);
});

test('a call with the token runs the tool (tracked); the audit log has a line per request', async () => {
  const p = profile();
  const res = await p.request('/mcp', rpc(p.token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } })));
  assert.equal(res.status, 200);
  const body = (await res.json()) as { id: number; result: { structuredContent?: unknown; isError?: boolean } };
  assert.equal(body.id, 1);
  assert.deepEqual(body.result.structuredContent, { echoed: 'hi' });
  assert.deepEqual(p.tracked, ['echo']);
  const notification = await p.request('/mcp', rpc(p.token, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })));
  assert.equal(notification.status, 202);
  assert.equal(await notification.text(), '');
  const lines = readFileSync(p.audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines.length, 2);
  assert.ok(!readFileSync(p.audit, 'utf8').includes(p.token), 'the token is never audited');
});

test('the edge rules: 405 for anything but POST, 401 without or with a wrong token, 415, 413, 400 parse error, 404 elsewhere', async () => {
  const p = profile();
  const get = await p.request('/mcp');
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  assert.deepEqual(await get.json(), { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method Not Allowed: POST only' } });
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
  const missing = await p.request('/mcp', rpc(undefined, ping));
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer realm="hermes-mcp-bridge"/);
  assert.deepEqual(await missing.json(), { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized: bearer token required' } });
  const wrong = await p.request('/mcp', rpc('0'.repeat(64), ping));
  assert.equal(wrong.status, 401);
  assert.equal(((await wrong.json()) as { error: { message: string } }).error.message, 'Unauthorized: invalid token');
  const text = await p.request('/mcp', rpc(p.token, ping, { 'content-type': 'text/plain' }));
  assert.equal(text.status, 415);
  const big = await p.request('/mcp', rpc(p.token, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping', params: { pad: 'x'.repeat(300) } })));
  assert.equal(big.status, 413);
  assert.equal(((await big.json()) as { error: { message: string } }).error.message, 'Payload Too Large: at most 200 bytes');
  const broken = await p.request('/mcp', rpc(p.token, '{"jsonrpc":'));
  assert.equal(broken.status, 400);
  assert.deepEqual(await broken.json(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  assert.deepEqual(await (await p.request('/mcp', rpc(p.token, ping))).json(), { jsonrpc: '2.0', id: 2, result: {} });
  const elsewhere = await p.request('/nope');
  assert.equal(elsewhere.status, 404);
  assert.deepEqual(await elsewhere.json(), { error: 'not_found', message: 'no route GET /nope' });
});

test('while refusing, /mcp answers the refusal before authentication; /health still answers', async () => {
  let refusing = true;
  const p = profile(() => refusing);
  const res = await p.request('/mcp', rpc(undefined, '{}'));
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after'), '5');
  assert.equal((await p.request('/health')).status, 200);
  refusing = false;
  assert.equal((await p.request('/mcp', rpc(undefined, '{}'))).status, 401);
});

test('a rotated MCP_AUTH_TOKEN applies without a restart; none at all makes /health degraded and /mcp refuse', async () => {
  const p = profile();
  const rotated = randomBytes(32).toString('hex');
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  writeFileSync(p.envFile, readFileSync(p.envFile, 'utf8').replace(p.token, rotated) + '# rotated\n');
  assert.equal((await p.request('/mcp', rpc(p.token, ping))).status, 401);
  assert.equal((await p.request('/mcp', rpc(rotated, ping))).status, 200);
  writeFileSync(p.envFile, readFileSync(p.envFile, 'utf8').replace(`MCP_AUTH_TOKEN=${rotated}\n`, ''));
  const health = (await (await p.request('/health')).json()) as Record<string, unknown>;
  assert.equal(health.status, 'degraded');
  assert.equal(health.auth, 'not_configured');
  const closed = await p.request('/mcp', rpc(rotated, ping));
  assert.equal(closed.status, 503, 'fails closed');
  assert.deepEqual(await closed.json(), { error: 'not_configured', message: 'no valid bearer token is configured for this endpoint' });
});
