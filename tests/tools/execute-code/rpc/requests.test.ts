import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestHandler } from '../../../../supervisor/tools/execute-code/rpc/requests.js';

// One request line to one response line, with Hermes' checks in Hermes' order.

const TOKEN = 'tok-' + 'x'.repeat(40);

function handler(maxCalls = 2) {
  const seen: Array<{ tool: string; args: Record<string, unknown> }> = [];
  const h = requestHandler({
    token: TOKEN,
    allowed: ['terminal', 'read_file'],
    maxCalls,
    dispatch: async (tool, args) => {
      seen.push({ tool, args });
      if (args.fail) throw new Error('tool blew up');
      return args.nothing ? undefined : { ok: tool };
    },
  });
  const line = async (request: unknown) => {
    const reply = await h.handleLine(Buffer.from(typeof request === 'string' ? request : JSON.stringify(request)));
    return reply === null ? null : (JSON.parse(reply) as unknown);
  };
  return { h, seen, line };
}

test('a blank line has no response; whitespace around a request is ignored', async () => {
  const { h, line } = handler();
  assert.equal(await h.handleLine(Buffer.from(' \t\r\n')), null);
  assert.deepEqual(await line(`  ${JSON.stringify({ token: TOKEN, tool: 'read_file', args: {} })}\r`), { ok: 'read_file' });
});

test('the checks come in order: parse, object, token, allowlist, call cap; refusals are free', async () => {
  const { h, line, seen } = handler(1);
  assert.match(((await line('{not json')) as { error: string }).error, /^Invalid RPC request: /);
  assert.deepEqual(await line([1, 2]), { error: 'Invalid RPC request: expected a JSON object' });
  assert.deepEqual(await line({ token: 'wrong', tool: 'nope' }), { error: 'Unauthorized RPC request' });
  assert.deepEqual(await line({ token: 42, tool: 'read_file' }), { error: 'Unauthorized RPC request' });
  assert.deepEqual(await line({ token: TOKEN, tool: 'web_search' }), { error: "Tool 'web_search' is not available in execute_code. Available: read_file, terminal" });
  assert.deepEqual(await line({ token: TOKEN, tool: 7 }), { error: "Tool '7' is not available in execute_code. Available: read_file, terminal" });
  assert.equal(h.callsMade(), 0);
  assert.deepEqual(await line({ token: TOKEN, tool: 'read_file', args: {} }), { ok: 'read_file' });
  assert.deepEqual(await line({ token: TOKEN, tool: 'read_file', args: {} }), { error: 'Tool call limit reached (1). No more tool calls allowed in this execution.' });
  assert.equal(seen.length, 1);
  assert.equal(h.callsMade(), 1);
});

test("terminal's background, pty and notification arguments are dropped before dispatch", async () => {
  const { line, seen } = handler();
  await line({ token: TOKEN, tool: 'terminal', args: { command: 'ls', background: true, pty: true, notify_on_complete: true, watch_patterns: ['x'], notify: 1, heartbeat: 1, persist_on_release: true } });
  assert.deepEqual(seen[0], { tool: 'terminal', args: { command: 'ls' } });
});

test('a dispatched call counts whatever its fate: args not an object, a thrown error, an undefined result', async () => {
  const { h, line, seen } = handler(5);
  assert.deepEqual(await line({ token: TOKEN, tool: 'read_file', args: 'path' }), { error: 'Invalid RPC request: args must be a JSON object' });
  assert.equal(seen.length, 0, 'never reached the tool');
  assert.deepEqual(await line({ token: TOKEN, tool: 'read_file', args: { fail: true } }), { error: 'tool blew up' });
  assert.equal(await line({ token: TOKEN, tool: 'read_file', args: { nothing: true } }), null);
  assert.equal(h.callsMade(), 3);
});
