#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ConfigError, loadConfig } from '../supervisor/platform/config.js';

// A smoke test for any hermes-mcp-bridge-compatible endpoint (this gateway's /bridge profile, its
// MCP_PORT listener, or the original bridge): health, 401 without auth, initialize, tools/list,
// a sync task, hermes_result, hermes_files, traversal and absolute-path refusal, the body limit.
// The token is read from the bridge .env (MCP_AUTH_TOKEN) and never printed.
//
//   node dist/scripts/bridge-smoke.js BASE_URL|--base BASE_URL [--env FILE] [--id TASK_ID]   (FILE defaults to $HERMES_MCP_BRIDGE_ENV)
//   BASE_URL: e.g. http://127.0.0.1:8765 or http://127.0.0.1:3060/bridge (…/mcp and …/health are appended)

const USAGE = 'usage: bridge-smoke BASE_URL|--base BASE_URL [--env FILE] [--id TASK_ID]   (FILE defaults to $HERMES_MCP_BRIDGE_ENV)\n';
const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

function fail(message: string): never {
  process.stderr.write(`bridge-smoke: ${message}\n${USAGE}`);
  process.exit(2);
}

// The bridge's own smoke test takes `--base URL`; a bare first argument works too.
const base = (option('--base') ?? (args[0]?.startsWith('--') ? undefined : args[0]))?.replace(/\/+$/, '');
let envFile = option('--env');
if (!envFile) {
  try {
    envFile = loadConfig(process.env).bridgeEnvFile;
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message);
    throw e;
  }
}
if (!base || base.startsWith('--')) fail('no base URL');
if (!envFile) fail('no env file: pass --env FILE or set HERMES_MCP_BRIDGE_ENV');
const token = parseEnv(readFileSync(envFile, 'utf8')).MCP_AUTH_TOKEN;
if (!token) {
  process.stderr.write(`bridge-smoke: no MCP_AUTH_TOKEN in ${envFile}\n`);
  process.exit(2);
}
const id = option('--id') ?? `smoke-${Date.now()}`;
let failures = 0;
let rpcId = 0;

function check(name: string, ok: boolean, detail = ''): void {
  if (!ok) failures++;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? ` (${detail})` : ''}\n`);
}

async function rpc(method: string, params: unknown, auth = true, body?: string): Promise<{ status: number; json: Record<string, unknown> | undefined }> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(auth ? { authorization: `Bearer ${token}` } : {}) },
    body: body ?? JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

async function tool(name: string, toolArgs: Record<string, unknown>): Promise<{ isError: boolean; data: Record<string, unknown> }> {
  const r = await rpc('tools/call', { name, arguments: toolArgs });
  const result = r.json?.result as { isError?: boolean; structuredContent?: Record<string, unknown> } | undefined;
  return { isError: result?.isError === true, data: result?.structuredContent ?? {} };
}

try {
  const health = await fetch(`${base}/health`);
  const h = (await health.json().catch(() => ({}))) as Record<string, unknown>;
  check('GET /health', health.status === 200 && h.status === 'ok', `HTTP ${health.status}`);
  check('401 without auth', (await rpc('ping', {}, false)).status === 401);
  const init = await rpc('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'bridge-smoke', version: '1' } });
  check('initialize', init.status === 200 && typeof (init.json?.result as { protocolVersion?: unknown })?.protocolVersion === 'string', `HTTP ${init.status}`);
  const list = await rpc('tools/list', {});
  const names = ((list.json?.result as { tools?: Array<{ name: string }> })?.tools ?? []).map((t) => t.name);
  check('tools/list (five tools)', ['hermes_task', 'hermes_status', 'list_agents', 'hermes_result', 'hermes_files'].every((n) => names.includes(n)), names.join(','));
  const task = await tool('hermes_task', { task: 'Smoke test: answer with a one-line greeting.', mode: 'sync', id });
  check('hermes_task sync', !task.isError && task.data.id === id && typeof task.data.summary === 'string', String(task.data.error ?? task.data.status));
  const result = await tool('hermes_result', { id });
  check('hermes_result', !result.isError && result.data.id === id, String(result.data.error ?? ''));
  const files = await tool('hermes_files', { id });
  check('hermes_files listing', !files.isError && Array.isArray(files.data.entries), String(files.data.error ?? ''));
  const traversal = await tool('hermes_files', { id, path: '../../etc/passwd' });
  check('traversal refused', traversal.isError);
  const absolute = await tool('hermes_files', { id, path: '/etc/passwd' });
  check('absolute path refused', absolute.isError);
  const big = await rpc('ping', {}, true, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping', params: { pad: 'x'.repeat(300 * 1024) } }));
  check('body limit (413)', big.status === 413, `HTTP ${big.status}`);
} catch (e) {
  check('reachable', false, (e as Error).message);
}
process.stdout.write(failures === 0 ? 'bridge-smoke: all checks passed\n' : `bridge-smoke: ${failures} check(s) failed\n`);
process.exit(failures === 0 ? 0 : 1);
