import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { markedBlocks, README_ORIGIN, runReadmeCurl, shellCommands } from '../helpers/readme.js';

// The README's "A first request by hand" curl lines, run as written (through bash, only the port
// replaced) against a real gateway on an ephemeral loopback port: each must get a JSON-RPC result —
// tools/list the six public tools, tools/call a tool result that is not an error, initialize a
// session id — so a README that drops a required `_meta` field or header fails here.

const SIX = ['tool_search', 'tool_describe', 'tool_call', 'startup_context', 'memory_context', 'skills_list'];

const commands = markedBlocks('first-requests').flatMap(shellCommands);

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => gw.close());

interface Answer {
  headers: Record<string, string>;
  message: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** curl's output: optional response headers (`-i`), then one JSON-RPC message as JSON or as one SSE event. */
function parseAnswer(out: string): Answer {
  const headers: Record<string, string> = {};
  let body = out;
  if (out.startsWith('HTTP/')) {
    const split = out.indexOf('\r\n\r\n');
    assert.ok(split > 0, `no end of headers in:\n${out.slice(0, 500)}`);
    for (const line of out.slice(0, split).split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    body = out.slice(split + 4);
  }
  const sse = /^data: (.*)$/m.exec(body);
  return { headers, message: JSON.parse(sse && !body.trimStart().startsWith('{') ? sse[1]! : body) as Answer['message'] };
}

test('the README has curl lines under its first-requests marker, aimed at the default port', () => {
  const curls = commands.filter((c) => c.startsWith('curl '));
  assert.ok(curls.length >= 2, `expected the tools/list and tools/call lines, found ${curls.length}`);
  assert.deepEqual(commands.filter((c) => !c.startsWith('curl ')), [], 'the checked block holds only curl lines');
  for (const c of curls) assert.ok(c.includes(`${README_ORIGIN}/mcp`), `not aimed at ${README_ORIGIN}/mcp: ${c}`);
  const methods = curls.map((c) => /"method":"([^"]+)"/.exec(c)?.[1]);
  assert.ok(methods.includes('tools/list') && methods.includes('tools/call'), `methods shown: ${methods.join(', ')}`);
});

for (const [i, command] of commands.entries()) {
  const method = /"method":"([^"]+)"/.exec(command)?.[1] ?? '(none)';
  test(`README curl line ${i + 1} (${method}) gets a result from a live gateway`, { timeout: 60_000 }, async () => {
    const stdout = await runReadmeCurl(command, gw.url);
    const { headers, message } = parseAnswer(stdout);
    assert.equal(message.error, undefined, `JSON-RPC error: ${JSON.stringify(message.error)}`);
    const result = message.result;
    assert.ok(result, `no result in ${stdout.slice(0, 500)}`);
    switch (method) {
      case 'tools/list':
        assert.deepEqual((result.tools as Array<{ name: string }>).map((t) => t.name), SIX);
        break;
      case 'tools/call': {
        assert.notEqual(result.isError, true, `tool error: ${JSON.stringify(result.structuredContent ?? result.content)}`);
        assert.ok(Array.isArray(result.content) && result.content.length > 0, 'the tool answered with content');
        break;
      }
      case 'initialize':
        assert.equal(typeof result.protocolVersion, 'string');
        assert.ok(headers['mcp-session-id'], 'initialize answers with the Mcp-Session-Id the next requests send');
        break;
      default:
        assert.fail(`no check for a README curl line with method ${method}; add one here`);
    }
  });
}
