import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gatewayMain, launchGateway, nodeFlags } from '../../bench/launch.js';
import { descendantsOf, processIsAlive, processStartTime } from '../../shared/proc.js';
import { connect, optionalComponents, rawPost, sessionToken, viaBridge } from '../helpers/gateway.js';
import { tempDirs } from '../helpers/temp.js';
import { within } from '../helpers/wait.js';

// SIGTERM drains before it stops anything: new requests get 503 with Retry-After (/readyz says
// draining, /healthz keeps answering), the call already running gets its real answer, and only
// then are workers stopped and the process exits, leaving none of its processes behind.

const dirs = tempDirs();
const children = new Set<ChildProcess>();
const started: Array<{ pid: number; start: string }> = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const p of started) {
    if (!processIsAlive(p.pid, p.start)) continue;
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  dirs.removeAll();
});

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const modernCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    name: 'tool_search',
    arguments: { queries: ['terminal'] },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
  },
});

test('SIGTERM with a call in flight: the call gets its real answer, a new call gets 503 + Retry-After, nothing is left running', async () => {
  const home = dirs.make('hmcp-drain-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  const { child, port } = await launchGateway(home, { HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents() });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const client = await connect(`${base}/mcp`, 'modern');
  const token = await sessionToken(client);

  // Settled into a value, so a call cut off by the shutdown fails the assertion below instead of
  // surfacing as an unhandled rejection.
  const inFlight = viaBridge(client, 'terminal', { command: 'sleep 2; echo done' }, token).catch((e: Error) => ({ isError: true, data: { thrown: e.message } as Record<string, unknown> }));
  await until('the terminal call to be running', 10_000, async () => {
    const h = (await (await fetch(`${base}/healthz`)).json()) as { inflight_native_calls: number };
    return h.inflight_native_calls >= 1 ? true : undefined;
  });
  // Everything the gateway runs now (pid and start time), to prove afterwards that none survives.
  for (const pid of descendantsOf(child.pid!)) {
    const start = processStartTime(pid);
    if (start) started.push({ pid, start });
  }
  assert.ok(started.length >= 2, 'a worker and its command are running');

  child.kill('SIGTERM');
  const readyz = await until('/readyz to report draining', 5000, async () => {
    const res = await fetch(`${base}/readyz`);
    return res.status === 503 ? ((await res.json()) as { status: string }) : undefined;
  });
  assert.equal(readyz.status, 'draining');

  const refused = await rawPost(`${base}/mcp`, modernCall, { 'mcp-protocol-version': '2026-07-28' });
  assert.equal(refused.status, 503);
  assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/, 'Retry-After in seconds');
  const body = (await refused.json()) as { jsonrpc: string; error: { message: string } };
  assert.equal(body.jsonrpc, '2.0');
  assert.match(body.error.message, /shutting down/);

  const health = await fetch(`${base}/healthz`);
  assert.equal(health.status, 200, '/healthz keeps answering while draining');
  assert.equal(((await health.json()) as { draining: boolean }).draining, true);

  const answer = await within(inFlight, 15_000, 'the in-flight call to answer');
  assert.equal(answer.isError, false, JSON.stringify(answer.data));
  assert.equal(answer.data.exit_code, 0, JSON.stringify(answer.data));
  assert.match(answer.data.output as string, /done/);

  assert.equal(await within(exited, 30_000, 'the gateway to exit'), 0, 'a clean exit');
  await client.close().catch(() => {});
  const survivors = await until('every process of the gateway to be gone', 5000, async () => {
    const alive = started.filter((p) => processIsAlive(p.pid, p.start));
    return alive.length === 0 ? alive : undefined;
  }).catch(() => started.filter((p) => processIsAlive(p.pid, p.start)));
  assert.deepEqual(survivors, []);
});

test('SIGTERM while the gateway is still starting: the start completes, then it drains and exits 0', async () => {
  const home = dirs.make('hmcp-drain-early-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  // A graph upstream that never answers holds the start (up to its 3 s startup timeout); the file
  // it writes first says the start is under way, with the gateway's signal handlers in place.
  const marker = join(home, 'graph-started');
  const graph = join(home, 'slow-graph');
  writeFileSync(graph, `#!/bin/sh\n: > '${marker}'\nexec sleep 60\n`, { mode: 0o755 });
  const child = spawn(process.execPath, [...nodeFlags, gatewayMain], {
    env: { ...process.env, HOME: home, HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_PORT: '0', HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(), HERMES_MCP_GRAPH_COMMAND: graph, HERMES_MCP_GRAPH_STARTUP_TIMEOUT_SECONDS: '3' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await until('the graph upstream to be started', 30_000, async () => (existsSync(marker) ? true : undefined));
  assert.doesNotMatch(stderr, /"event":"listening"/, 'the signal goes in before the gateway listens');
  child.kill('SIGTERM');
  assert.deepEqual(await within(exited, 60_000, 'the gateway to exit'), { code: 0, signal: null });
  const events = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { event?: string }).event);
  for (const event of ['shutdown', 'listening', 'drained']) assert.ok(events.includes(event), `${event} in ${events.join(', ')}`);
  assert.ok(events.indexOf('shutdown') < events.indexOf('listening'), 'the shutdown was asked for during the start');
});
