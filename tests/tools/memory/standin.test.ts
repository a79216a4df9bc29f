import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Honcho, NotFoundError, UnprocessableEntityError } from '@honcho-ai/sdk';
import { startHonchoStandin, type HonchoStandin } from '../../fixtures/honcho-standin.js';

// The Honcho stand-in itself: it must reject what the real server (per its OpenAPI document) would
// reject, and answer what the SDK calls with documented shapes. The gateway tests trust it.

describe('Honcho stand-in', () => {
  let s: HonchoStandin;
  before(async () => {
    s = await startHonchoStandin();
    s.seed({ workspace: 'hermes', peers: ['ada', 'chatgpt'] });
  });
  after(async () => {
    assert.deepEqual(s.violations, [], 'every response matched the OpenAPI document');
    await s.close();
  });

  const post = (path: string, body: unknown, query = '') =>
    fetch(`${s.url}${path}${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  test('unknown paths are 404, a known path with another method 405, like FastAPI', async () => {
    assert.equal((await fetch(`${s.url}/v3/nope`)).status, 404);
    assert.equal((await fetch(`${s.url}/v2/workspaces/hermes/observations/list`, { method: 'POST' })).status, 404, 'the v2 surface is gone');
    assert.equal((await fetch(`${s.url}/v3/workspaces/hermes/conclusions/abc`)).status, 405);
  });

  test('a conclusion without observer/observed is 422 with a FastAPI detail list, and nothing is written', async () => {
    const res = await post('/v3/workspaces/hermes/conclusions', { conclusions: [{ content: 'x' }] });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { detail: Array<{ type: string; loc: unknown[] }> };
    assert.deepEqual(
      body.detail.map((d) => d.loc),
      [
        ['body', 'conclusions', 0, 'observer_id'],
        ['body', 'conclusions', 0, 'observed_id'],
      ],
    );
    assert.equal(body.detail[0]!.type, 'missing');
    assert.equal(s.conclusions('hermes').length, 0);
  });

  test('schema limits are enforced: empty content, an empty batch, a bad peer id, page size 0 or "abc"', async () => {
    const base = { observer_id: 'chatgpt', observed_id: 'ada' };
    assert.equal((await post('/v3/workspaces/hermes/conclusions', { conclusions: [{ ...base, content: '' }] })).status, 422);
    assert.equal((await post('/v3/workspaces/hermes/conclusions', { conclusions: [] })).status, 422);
    assert.equal((await post('/v3/workspaces/hermes/peers', { id: 'not a valid id' })).status, 422);
    assert.equal((await post('/v3/workspaces/hermes/conclusions/list', {}, '?size=0')).status, 422);
    assert.equal((await post('/v3/workspaces/hermes/conclusions/list', {}, '?size=abc')).status, 422);
    assert.equal((await post('/v3/workspaces/hermes/conclusions/list', {}, '?size=101')).status, 422);
    assert.equal((await post('/v3/workspaces/hermes/peers/ada/chat', { query: 'q', reasoning_level: 'extreme' })).status, 422);
    assert.equal((await post('/v3/workspaces/hermes/peers/ada/chat', '{not json')).status, 422);
    assert.equal((await post('/v3/workspaces/hermes/peers/ada/chat', '')).status, 422, 'a required body');
  });

  test('missing resources are 404: workspace, observer peer, conclusion', async () => {
    assert.equal((await post('/v3/workspaces/nowhere/peers', { id: 'ada' })).status, 404);
    assert.equal((await post('/v3/workspaces/hermes/conclusions', { conclusions: [{ content: 'x', observer_id: 'ghost', observed_id: 'ada' }] })).status, 404);
    assert.equal((await fetch(`${s.url}/v3/workspaces/hermes/conclusions/nope`, { method: 'DELETE' })).status, 404);
    assert.equal((await fetch(`${s.url}/v3/workspaces/hermes/sessions/nope/context`)).status, 404);
  });

  test('the SDK round trip: create 201, list newest first as a Page, query by overlap, delete 204', async () => {
    const honcho = new Honcho({ baseURL: s.url, apiKey: 'k', workspaceId: 'hermes', maxRetries: 0 });
    const chatgpt = await honcho.peer('chatgpt');
    const view = chatgpt.conclusionsOf('ada');
    const [first] = await view.create({ content: 'Ada prefers tea' });
    const [second] = await view.create({ content: 'Ada uses pnpm' });
    const page = await view.list({ page: 1, size: 1 });
    assert.deepEqual([page.items.map((c) => c.id), page.total, page.pages], [[second!.id], 2, 2]);
    assert.deepEqual((await view.query('tea please', 5)).map((c) => c.id), [first!.id]);
    await view.delete(first!.id);
    await assert.rejects(view.delete(first!.id), NotFoundError);
    assert.deepEqual(s.conclusions('hermes').map((c) => c.id), [second!.id]);
    const create = s.calls.find((c) => c.method === 'POST' && c.path === '/v3/workspaces/hermes/conclusions' && (c.body as { conclusions?: Array<{ content: string }> }).conclusions?.[0]?.content === 'Ada prefers tea');
    assert.equal(create!.status, 201);
    await assert.rejects(honcho.http.post('/v3/workspaces/hermes/conclusions', { body: { conclusions: [{ content: 'x' }] } }), UnprocessableEntityError);
  });

  test('a required bearer key is enforced (401) once set', async () => {
    s.requireKey('secret-key');
    try {
      assert.equal((await post('/v3/workspaces', { id: 'hermes' })).status, 401);
      const ok = await fetch(`${s.url}/v3/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer secret-key' }, body: '{"id":"hermes"}' });
      assert.equal(ok.status, 200);
    } finally {
      s.requireKey(undefined);
    }
  });

  test('a held request is recorded on arrival and applied only when released', async () => {
    const hold = s.hold((c) => c.method === 'POST' && c.path === '/v3/workspaces/hermes/conclusions');
    const before = s.conclusions('hermes').length;
    const pending = post('/v3/workspaces/hermes/conclusions', { conclusions: [{ content: 'held', observer_id: 'chatgpt', observed_id: 'ada' }] });
    await hold.arrived;
    assert.equal(s.conclusions('hermes').length, before, 'not applied while held');
    hold.release();
    assert.equal((await pending).status, 201);
    assert.equal(s.conclusions('hermes').length, before + 1);
  });
});
