import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { startRpcServer, type RpcServerOptions } from '../../../../supervisor/tools/execute-code/rpc/index.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'hx-rpc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A raw NDJSON client: send lines, read response lines. */
class LineClient {
  private buffer = '';
  private readonly lines: string[] = [];
  private waiters: Array<() => void> = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      this.buffer += d;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) !== -1) {
        this.lines.push(this.buffer.slice(0, nl));
        this.buffer = this.buffer.slice(nl + 1);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static open(path: string): Promise<LineClient> {
    return new Promise((resolveOpen, reject) => {
      const socket = connect(path);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolveOpen(new LineClient(socket));
      });
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Next response line, or null once the connection has closed with nothing left. */
  async next(timeoutMs = 5_000): Promise<string | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      if (this.closed) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a response line');
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
    return this.lines.shift()!;
  }

  async request(payload: unknown): Promise<unknown> {
    this.write(JSON.stringify(payload) + '\n');
    const line = await this.next();
    if (line === null) throw new Error('connection closed before a response');
    return JSON.parse(line);
  }

  /** Resolves once the server has closed the connection. */
  async waitClosed(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('connection still open');
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

const TOKEN = 'test-token-0123456789abcdef';
const ALLOWED = ['web_search', 'web_extract', 'read_file', 'write_file', 'search_files', 'patch', 'terminal'];

interface Call {
  tool: string;
  args: Record<string, unknown>;
}

async function serve(
  t: { after(fn: () => unknown): void },
  overrides: Partial<RpcServerOptions> = {},
): Promise<{ server: Awaited<ReturnType<typeof startRpcServer>>; calls: Call[]; client: LineClient }> {
  const calls: Call[] = [];
  const server = await startRpcServer({
    dir: tempDir(t),
    token: TOKEN,
    allowed: ALLOWED,
    maxCalls: 50,
    dispatch: async (tool, args) => {
      calls.push({ tool, args });
      return { ok: true, tool };
    },
    ...overrides,
  });
  t.after(() => server.close());
  const client = await LineClient.open(server.path);
  t.after(() => client.close());
  return { server, calls, client };
}

test('the socket is <dir>/hermes_rpc_<32 hex>.sock with mode 0600', async (t) => {
  const dir = tempDir(t);
  const server = await startRpcServer({ dir, token: TOKEN, allowed: ALLOWED, maxCalls: 50, dispatch: async () => ({}) });
  t.after(() => server.close());
  assert.equal(dirname(server.path), dir);
  assert.match(basename(server.path), /^hermes_rpc_[0-9a-f]{32}\.sock$/);
  const st = statSync(server.path);
  assert.ok(st.isSocket());
  assert.equal(st.mode & 0o777, 0o600);
});

test('an authorised, allowed call is dispatched and its result sent back as one JSON line', async (t) => {
  const { server, calls, client } = await serve(t);
  const reply = await client.request({ tool: 'read_file', args: { path: '/x', offset: 1 }, token: TOKEN });
  assert.deepEqual(reply, { ok: true, tool: 'read_file' });
  assert.deepEqual(calls, [{ tool: 'read_file', args: { path: '/x', offset: 1 } }]);
  assert.equal(server.callsMade(), 1);
});

test('malformed JSON gets "Invalid RPC request: ..." and costs nothing', async (t) => {
  const { server, calls, client } = await serve(t);
  client.write('{"tool": "terminal", oops}\n');
  const reply = JSON.parse((await client.next())!) as { error: string };
  assert.match(reply.error, /^Invalid RPC request: ./);
  assert.equal(calls.length, 0);
  assert.equal(server.callsMade(), 0);
});

test('invalid UTF-8 in a request line is an invalid request', async (t) => {
  const { calls, client } = await serve(t);
  client.write(Buffer.concat([Buffer.from('{"tool":"terminal","token":"'), Buffer.of(0xff, 0xfe), Buffer.from('"}\n')]));
  const reply = JSON.parse((await client.next())!) as { error: string };
  assert.match(reply.error, /^Invalid RPC request: /);
  assert.equal(calls.length, 0);
});

test('a wrong token gets {"error":"Unauthorized RPC request"} and nothing is dispatched', async (t) => {
  const { server, calls, client } = await serve(t);
  assert.deepEqual(await client.request({ tool: 'terminal', args: { command: 'id' }, token: TOKEN + 'x' }), {
    error: 'Unauthorized RPC request',
  });
  assert.deepEqual(await client.request({ tool: 'terminal', args: { command: 'id' } }), { error: 'Unauthorized RPC request' });
  assert.deepEqual(await client.request({ tool: 'terminal', args: { command: 'id' }, token: 12345 }), {
    error: 'Unauthorized RPC request',
  });
  assert.equal(calls.length, 0);
  assert.equal(server.callsMade(), 0);
});

test('a tool outside the allowlist is refused with Hermes\' message listing the sorted allowlist', async (t) => {
  const { server, calls, client } = await serve(t, { allowed: ['terminal', 'read_file', 'patch'] });
  assert.deepEqual(await client.request({ tool: 'send_message', args: {}, token: TOKEN }), {
    error: "Tool 'send_message' is not available in execute_code. Available: patch, read_file, terminal",
  });
  assert.deepEqual(await client.request({ args: {}, token: TOKEN }), {
    error: "Tool '' is not available in execute_code. Available: patch, read_file, terminal",
  });
  assert.equal(calls.length, 0);
  assert.equal(server.callsMade(), 0);
});

test('the call cap refuses the call after maxCalls with Hermes\' exact message', async (t) => {
  const { server, calls, client } = await serve(t, { maxCalls: 3 });
  for (let i = 0; i < 3; i++) await client.request({ tool: 'terminal', args: { command: `echo ${i}` }, token: TOKEN });
  assert.deepEqual(await client.request({ tool: 'terminal', args: { command: 'echo 3' }, token: TOKEN }), {
    error: 'Tool call limit reached (3). No more tool calls allowed in this execution.',
  });
  assert.equal(calls.length, 3);
  assert.equal(server.callsMade(), 3);
});

test('refused requests do not count toward the cap', async (t) => {
  const { server, calls, client } = await serve(t, { maxCalls: 1 });
  client.write('not json\n');
  await client.next();
  await client.request({ tool: 'terminal', args: {}, token: 'wrong' });
  await client.request({ tool: 'delegate_task', args: {}, token: TOKEN });
  assert.deepEqual(await client.request({ tool: 'terminal', args: { command: 'ok' }, token: TOKEN }), { ok: true, tool: 'terminal' });
  assert.equal(calls.length, 1);
  assert.equal(server.callsMade(), 1);
});

test('checks run in Hermes\' order: token before allowlist, allowlist before cap', async (t) => {
  const { client } = await serve(t, { maxCalls: 0 });
  assert.deepEqual(await client.request({ tool: 'delegate_task', token: 'wrong' }), { error: 'Unauthorized RPC request' });
  assert.deepEqual(await client.request({ tool: 'delegate_task', token: TOKEN }), {
    error: `Tool 'delegate_task' is not available in execute_code. Available: ${[...ALLOWED].sort().join(', ')}`,
  });
  assert.deepEqual(await client.request({ tool: 'terminal', token: TOKEN }), {
    error: 'Tool call limit reached (0). No more tool calls allowed in this execution.',
  });
});

test('terminal loses background, pty, notify_on_complete, watch_patterns, notify, heartbeat and persist_on_release before dispatch', async (t) => {
  const { calls, client } = await serve(t);
  await client.request({
    tool: 'terminal',
    args: { command: 'make', timeout: 10, workdir: '/w', background: true, pty: true, notify_on_complete: true, watch_patterns: ['x'], notify: true, heartbeat: 60, persist_on_release: true },
    token: TOKEN,
  });
  assert.deepEqual(calls, [{ tool: 'terminal', args: { command: 'make', timeout: 10, workdir: '/w' } }]);
});

test('only terminal arguments are stripped: other tools keep a "background" argument', async (t) => {
  const { calls, client } = await serve(t);
  await client.request({ tool: 'web_search', args: { query: 'q', background: true }, token: TOKEN });
  assert.deepEqual(calls, [{ tool: 'web_search', args: { query: 'q', background: true } }]);
});

test('a missing args object dispatches with {}', async (t) => {
  const { calls, client } = await serve(t);
  await client.request({ tool: 'terminal', token: TOKEN });
  assert.deepEqual(calls, [{ tool: 'terminal', args: {} }]);
});

test('args that are not an object fail as a dispatched call (counted, dispatch not invoked)', async (t) => {
  const { server, calls, client } = await serve(t);
  assert.deepEqual(await client.request({ tool: 'terminal', args: ['ls'], token: TOKEN }), {
    error: 'Invalid RPC request: args must be a JSON object',
  });
  assert.equal(calls.length, 0);
  assert.equal(server.callsMade(), 1);
});

test('a dispatch error becomes {"error": message} and still counts as a call', async (t) => {
  const { server, client } = await serve(t, {
    dispatch: async () => {
      throw new Error('disk on fire');
    },
  });
  assert.deepEqual(await client.request({ tool: 'terminal', args: { command: 'x' }, token: TOKEN }), { error: 'disk on fire' });
  assert.equal(server.callsMade(), 1);
});

test('a string result is sent as a JSON string (the client double-decodes it)', async (t) => {
  const { client } = await serve(t, { dispatch: async () => '{"output": "hi\\n", "exit_code": 0}' });
  client.write(JSON.stringify({ tool: 'terminal', args: { command: 'echo hi' }, token: TOKEN }) + '\n');
  const line = (await client.next())!;
  assert.equal(line, JSON.stringify('{"output": "hi\\n", "exit_code": 0}'));
  assert.deepEqual(JSON.parse(JSON.parse(line) as string), { output: 'hi\n', exit_code: 0 });
});

test('requests are served one at a time, in order, even when pipelined in one write', async (t) => {
  let active = 0;
  let maxActive = 0;
  const { client } = await serve(t, {
    dispatch: async (_tool, args) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 20 - Number(args.n) * 5));
      active--;
      return { n: args.n };
    },
  });
  const lines = [0, 1, 2, 3].map((n) => JSON.stringify({ tool: 'terminal', args: { n }, token: TOKEN })).join('\n') + '\n';
  client.write(lines);
  const replies = [];
  for (let i = 0; i < 4; i++) replies.push(JSON.parse((await client.next())!));
  assert.deepEqual(replies, [{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
  assert.equal(maxActive, 1);
});

test('blank lines get no response', async (t) => {
  const { client } = await serve(t);
  client.write('\n   \r\n' + JSON.stringify({ tool: 'terminal', args: {}, token: TOKEN }) + '\n');
  assert.deepEqual(JSON.parse((await client.next())!), { ok: true, tool: 'terminal' });
});

test('a request line over 4 MiB gets an error and the connection is closed', async (t) => {
  const { calls, client } = await serve(t);
  const big = JSON.stringify({ tool: 'write_file', args: { path: '/x', content: 'y'.repeat(4 * 1024 * 1024) }, token: TOKEN });
  client.write(big + '\n');
  const line = await client.next(10_000);
  assert.deepEqual(JSON.parse(line!), { error: 'Invalid RPC request: request line exceeds 4194304 bytes' });
  await client.waitClosed(10_000);
  assert.equal(calls.length, 0);
});

test('a line of exactly maxRequestBytes is still served', async (t) => {
  const { calls, client } = await serve(t, { maxRequestBytes: 1000 });
  const payload = { tool: 'write_file', args: { path: '/x', content: '' }, token: TOKEN };
  const pad = 1000 - JSON.stringify(payload).length;
  payload.args.content = 'z'.repeat(pad);
  assert.equal(JSON.stringify(payload).length, 1000);
  assert.deepEqual(await client.request(payload), { ok: true, tool: 'write_file' });
  assert.equal(calls.length, 1);
});

test('only one connection is ever served: a second one is closed at once', async (t) => {
  const { server, client } = await serve(t);
  const second = await LineClient.open(server.path);
  t.after(() => second.close());
  await second.waitClosed();
  assert.deepEqual(await client.request({ tool: 'terminal', args: {}, token: TOKEN }), { ok: true, tool: 'terminal' });
});

test('close() removes the socket file and drops the connection', async (t) => {
  const { server, client } = await serve(t);
  assert.ok(existsSync(server.path));
  await server.close();
  assert.equal(existsSync(server.path), false);
  await client.waitClosed();
  await server.close(); // idempotent
});
