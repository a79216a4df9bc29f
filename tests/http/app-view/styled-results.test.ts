import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, ERAS, openSession, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// Colours for the result view, end to end on a running gateway: a command's coloured output
// reaches a client that renders views as the plain text the model reads plus, in the result's
// `_meta`, the same text in its colours (supervisor/core/styled.ts); a client that does not
// render views gets the result exactly as before; a secret in coloured output sends no colours.

const KEY = 'hermes-mcp-gateway/styled';
const COLOURED = "printf '\\033[1mBuilding\\033[0m 3 packages\\n\\033[32mok core\\033[0m \\033[31;1mfailed view\\033[0m\\n'";
const PLAIN = 'Building 3 packages\nok core failed view';

type Result = { structuredContent?: Record<string, unknown>; content: unknown[]; _meta?: Record<string, unknown> };
const twins = (result: Result) => result._meta?.[KEY] as Record<string, string> | undefined;

/** A result without its styled twins (the protocol's own `_meta`, in the modern era, stays). */
function withoutTwins(result: Result): Result {
  const { [KEY]: _twins, ...meta } = result._meta ?? {};
  const { _meta: _all, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

describe('styled twins in tool_call results', () => {
  let gw: TestGateway;
  const clients: Client[] = [];

  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    for (const c of clients) await c.close();
    await gw?.close();
  });

  async function session(era: 'legacy' | 'modern', views: boolean) {
    const s = await openSession(gw.mcpUrl, era, { views });
    clients.push(s.client);
    return s;
  }

  for (const era of ERAS) {
    test(`${era} era: terminal output in colours for a client that renders views, the same text for both`, async () => {
      const host = await session(era, true);
      const plain = await session(era, false);
      const shown = (await viaBridge(host.client, 'terminal', { command: COLOURED }, host.token)).result as Result;
      const before = (await viaBridge(plain.client, 'terminal', { command: COLOURED }, plain.token)).result as Result;
      assert.equal(shown.structuredContent?.output, PLAIN, 'the model reads the output without sequences');
      assert.equal(twins(shown)?.output, '\x1b[1mBuilding\x1b[0m 3 packages\n\x1b[32mok core\x1b[0m \x1b[31;1mfailed view');
      assert.equal(twins(before), undefined, 'a client that does not render views gets no colours');
      assert.deepEqual(withoutTwins(shown), before, 'and apart from them, the same result');
    });
  }

  test('ChatGPT, which marks its calls with its Apps SDK request metadata, gets the colours', async () => {
    const client = await connect(gw.mcpUrl, 'legacy');
    clients.push(client);
    const token = (await viaBridge(client, 'session_open')).data.session_token as string;
    const result = (await client.callTool({
      name: 'tool_call',
      arguments: { calls: [{ name: 'terminal', arguments: { command: COLOURED } }], session_token: token },
      _meta: { 'openai/locale': 'en-US', 'openai/userAgent': 'test' },
    })) as Result;
    assert.equal(result.structuredContent?.output, PLAIN);
    assert.match(twins(result)?.output ?? '', /\x1b\[32mok core/);
  });

  test('a secret in coloured output: the model reads it redacted, and no colours are sent', async () => {
    const host = await session('modern', true);
    const secret = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(3);
    const { result } = await viaBridge(host.client, 'terminal', { command: `printf '\\033[33mOPENAI_API_KEY=${secret}\\033[0m\\n'` }, host.token);
    const r = result as Result;
    assert.ok(!JSON.stringify(r).includes(secret), 'the secret is nowhere in the result');
    assert.match(String(r.structuredContent?.output), /^OPENAI_API_KEY=/);
    assert.equal(twins(r), undefined);
  });

  test("a job's output tail in colours, while it runs and in its stored receipt", async () => {
    const host = await session('modern', true);
    const { data } = await viaBridge(host.client, 'job_prepare', { command: `${COLOURED}; sleep 30`, workdir: gw.home }, host.token);
    const job = { job_id: data.job_id as string, recovery_token: data.recovery_token as string };
    await viaBridge(host.client, 'job_start', job, host.token);
    let running: Result | undefined;
    for (let i = 0; i < 20 && !running; i++) {
      const r = (await viaBridge(host.client, 'job_status', { ...job, wait_seconds: 1 })).result as Result;
      if (String(r.structuredContent?.output_tail).includes('failed view')) running = r;
    }
    assert.ok(running, 'the output arrived');
    assert.equal(running.structuredContent?.state, 'running');
    assert.equal(running.structuredContent?.output_truncated, false, 'the colour sequences it lost are not output cut');
    assert.equal(twins(running)?.output_tail, '\x1b[1mBuilding\x1b[0m 3 packages\n\x1b[32mok core\x1b[0m \x1b[31;1mfailed view\x1b[0m\n');
    // Cancelled, then read by a new client: the receipt kept the colours with the tail.
    await viaBridge(host.client, 'job_cancel', job);
    const later = await session('modern', true);
    let ended: Result | undefined;
    for (let i = 0; i < 20 && !ended; i++) {
      const r = (await viaBridge(later.client, 'job_status', { ...job, wait_seconds: 2 })).result as Result;
      if (r.structuredContent?.state === 'cancelled') ended = r;
    }
    assert.ok(ended, 'the job ended');
    assert.equal(ended.structuredContent?.output_tail, `${PLAIN}\n`);
    assert.equal(ended.structuredContent?.output_truncated, false);
    assert.equal(twins(ended)?.output_tail, '\x1b[1mBuilding\x1b[0m 3 packages\n\x1b[32mok core\x1b[0m \x1b[31;1mfailed view\x1b[0m\n');
    const plain = await session('modern', false);
    const seen = (await viaBridge(plain.client, 'job_status', job)).result as Result;
    assert.deepEqual(seen.structuredContent, ended.structuredContent);
    assert.equal(twins(seen), undefined);
  });
});
