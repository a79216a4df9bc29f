import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startHermesApiStandin, type HermesApiStandin } from '../../fixtures/hermes-api-standin.js';
import { waitFor } from '../../helpers/wait.js';

// The Hermes API stand-in keeps the upstream contract the bridge tests rely on.

describe('Hermes API stand-in', () => {
  let s: HermesApiStandin;
  before(async () => {
    s = await startHermesApiStandin({ key: 'sk-k', runDelayMs: 200, profiles: ['coder'] });
  });
  after(() => s.close());

  const req = (path: string, init: RequestInit & { key?: string; headers?: Record<string, string> } = {}) =>
    fetch(`${s.url}${path}`, { ...init, headers: { authorization: `Bearer ${init.key ?? 'sk-k'}`, ...init.headers } });
  const submit = (body: unknown, key?: string) => req('/v1/runs', { method: 'POST', body: JSON.stringify(body), ...(key ? { headers: { 'idempotency-key': key } } : {}) });

  test("bearer on everything but /health, with Hermes 401 body; a profile takes the listener's key, an unknown one is 404", async () => {
    assert.equal((await fetch(`${s.url}/health`)).status, 200);
    const denied = await req('/v1/runs/x', { key: 'wrong' });
    assert.equal(denied.status, 401);
    assert.deepEqual(((await denied.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
    assert.equal((await req('/p/coder/v1/runs/x', { key: 'sk-coder' })).status, 401);
    assert.equal((await req('/p/coder/v1/runs/x', { key: 'sk-k' })).status, 404);
    assert.equal((await req('/p/coder/v1/models', { key: 'sk-coder' })).status, 401);
    assert.equal((await fetch(`${s.url}/p/ghost/health`)).status, 404);
  });

  test('202 run_<hex32> started, status to completed, events end with run.completed', async () => {
    const r = await submit({ input: 'hello' });
    assert.equal(r.status, 202);
    const { run_id, status } = (await r.json()) as { run_id: string; status: string };
    assert.match(run_id, /^run_[0-9a-f]{32}$/);
    assert.equal(status, 'started');
    const events = await (await req(`/v1/runs/${run_id}/events`)).text();
    assert.match(events, /"event":"message\.delta"/);
    assert.match(events, /"event":"run\.completed".*Echo: hello/);
    const done = (await (await req(`/v1/runs/${run_id}`)).json()) as Record<string, unknown>;
    assert.equal(done.object, 'hermes.run');
    assert.equal(done.status, 'completed');
  });

  test('stop answers stopping, then the run settles cancelled', async () => {
    const { run_id } = (await (await submit({ input: 'long' })).json()) as { run_id: string };
    const stop = (await (await req(`/v1/runs/${run_id}/stop`, { method: 'POST' })).json()) as { status: string };
    assert.equal(stop.status, 'stopping');
    await waitFor(async () => ((await (await req(`/v1/runs/${run_id}`)).json()) as { status: string }).status === 'cancelled', 2000, 'cancelled');
  });

  test('X-Hermes-Session-Id over 256 characters, or with NUL/CR/LF or "..", is refused 400', async () => {
    const chat = (session: string) => req('/v1/chat/completions', { method: 'POST', headers: { 'x-hermes-session-id': session }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }) });
    assert.equal((await chat('s'.repeat(256))).status, 200);
    const long = await chat('s'.repeat(257));
    assert.equal(long.status, 400);
    assert.equal(((await long.json()) as { error: { message: string } }).error.message, 'Session ID too long');
    assert.equal((await chat('gb-task-a..b')).status, 400);
    // fetch refuses to send control characters in a header, so a raw request carries the NUL.
    const { port } = new URL(s.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const body = '{"messages":[{"role":"user","content":"hi"}]}';
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.end(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-k\r\nX-Hermes-Session-Id: a\0b\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`),
      );
      let text = '';
      socket.on('data', (d: Buffer) => (text += String(d)));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
  });

  test('--max-concurrent: a request beyond max_concurrent_runs gets 429 with Retry-After: 1', async () => {
    const busy = await startHermesApiStandin({ key: 'sk-k', maxConcurrent: 1, runDelayMs: 300, chatDelayMs: 300 });
    try {
      const post = (path: string, body: unknown) => fetch(`${busy.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer sk-k' }, body: JSON.stringify(body) });
      assert.equal((await post('/v1/runs', { input: 'first' })).status, 202);
      const refused = await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'second' }] });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal((await post('/v1/runs', { input: 'third' })).status, 429);
      await waitFor(async () => (await post('/v1/chat/completions', { messages: [{ role: 'user', content: 'later' }] })).status === 200, 3000, 'the slot to free');
    } finally {
      await busy.close();
    }
  });

  test('Idempotency-Key is ignored on /v1/runs, as Hermes 0.19 ignores it: a repeat is a new run; unknown run 404; bad body 400', async () => {
    const a = (await (await submit({ input: 'same' }, 'k1')).json()) as { run_id: string };
    const b = await submit({ input: 'same' }, 'k1');
    assert.equal(b.status, 202);
    assert.equal(b.headers.get('idempotency-replayed'), null);
    assert.notEqual(((await b.json()) as { run_id: string }).run_id, a.run_id);
    assert.equal((await submit({ input: 'other' }, 'k1')).status, 202);
    assert.equal((await req('/v1/runs/run_nope')).status, 404);
    assert.equal((await submit({})).status, 400);
  });
});
