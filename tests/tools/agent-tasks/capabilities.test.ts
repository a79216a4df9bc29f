import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ABSENT, CapabilityCache, parseCapabilities } from '../../../supervisor/tools/agent-tasks/capabilities.js';

// What the gateway reads from a Hermes API server's GET /v1/capabilities (the real servers' answers
// are exercised in real-hermes-runs.test.ts; these are the shapes either Hermes answers, trimmed),
// and how long it keeps an answer.

describe('agent capabilities', () => {
  test("0.19's capabilities: run stop, no run idempotency", () => {
    const caps = parseCapabilities({ object: 'hermes.api_server.capabilities', features: { run_submission: true, run_stop: true }, endpoints: { run_stop: { method: 'POST', path: '/v1/runs/{run_id}/stop' } } });
    assert.deepEqual(caps, { source: 'capabilities', runStop: true });
  });

  test("newer Hermes' capabilities: run idempotency with its retention", () => {
    const caps = parseCapabilities({ features: { run_stop: true, runs_idempotency: { supported: true, durable: true, retention_seconds: 86400 } }, endpoints: {} });
    assert.deepEqual(caps, { source: 'capabilities', runStop: true, runIdempotency: { durable: true, retentionSeconds: 86400 } });
  });

  test('a feature not advertised, or advertised unsupported, is not relied on; an unreadable answer is absent', () => {
    assert.deepEqual(parseCapabilities({ features: { runs_idempotency: { supported: false } } }), { source: 'capabilities', runStop: false });
    for (const body of [null, [], 'x', {}, { features: [] }]) assert.equal(parseCapabilities(body), ABSENT, JSON.stringify(body));
  });

  test('the cache keeps an answer for its time and asks again after it, or after forget', async () => {
    let now = 0;
    let asked = 0;
    const cache = new CapabilityCache(300, () => now);
    const read = async () => (asked++, ABSENT);
    await cache.get('a', read);
    await cache.get('a', read);
    assert.equal(asked, 1);
    await cache.get('b', read);
    assert.equal(asked, 2, 'another agent or key is its own entry');
    now = 300_001;
    await cache.get('a', read);
    assert.equal(asked, 3);
    cache.forget('a');
    await cache.get('a', read);
    assert.equal(asked, 4);
    await assert.rejects(cache.get('c', async () => Promise.reject(new Error('refused'))));
    await cache.get('c', read);
    assert.equal(asked, 5, 'a failed read is not kept');
  });
});
