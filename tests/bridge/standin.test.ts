import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHermesApiStandin, type HermesApiStandin } from '../fixtures/hermes-api-standin.js';
import { waitFor } from '../helpers/wait.js';

// The Hermes API stand-in keeps the upstream contract the bridge tests rely on.

describe('Hermes API stand-in', () => {
  let s: HermesApiStandin;
  before(async () => {
    s = await startHermesApiStandin({ key: 'sk-k', runDelayMs: 200, profiles: { coder: 'sk-coder' } });
  });
  after(() => s.close());

  const req = (path: string, init: RequestInit & { key?: string; headers?: Record<string, string> } = {}) =>
    fetch(`${s.url}${path}`, { ...init, headers: { authorization: `Bearer ${init.key ?? 'sk-k'}`, ...init.headers } });
  const submit = (body: unknown, key?: string) => req('/v1/runs', { method: 'POST', body: JSON.stringify(body), ...(key ? { headers: { 'idempotency-key': key } } : {}) });

  test('bearer on everything but /health, with Hermes 401 body; profiles have their own keys', async () => {
    assert.equal((await fetch(`${s.url}/health`)).status, 200);
    const denied = await req('/v1/runs/x', { key: 'wrong' });
    assert.equal(denied.status, 401);
    assert.deepEqual(((await denied.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
    assert.equal((await req('/p/coder/v1/runs/x', { key: 'sk-k' })).status, 401);
    assert.equal((await req('/p/coder/v1/runs/x', { key: 'sk-coder' })).status, 404);
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

  test('Idempotency-Key: identical retry replays the run; another body is 409; unknown run 404; bad body 400', async () => {
    const a = await submit({ input: 'same' }, 'k1');
    const b = await submit({ input: 'same' }, 'k1');
    assert.equal(b.headers.get('idempotency-replayed'), 'true');
    assert.equal(((await b.json()) as { run_id: string }).run_id, ((await a.json()) as { run_id: string }).run_id);
    const c = await submit({ input: 'other' }, 'k1');
    assert.equal(c.status, 409);
    assert.equal(((await c.json()) as { error: { code: string } }).error.code, 'idempotency_key_conflict');
    assert.equal((await req('/v1/runs/run_nope')).status, 404);
    assert.equal((await submit({})).status, 400);
  });
});
