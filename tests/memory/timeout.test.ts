import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, viaBridge, type Era } from '../helpers/gateway.js';
import { startMemoryGateway, until, type MemoryGateway } from '../helpers/memory.js';

// Spec "Backend budgets": a timed-out memory mutation reports state=unknown; its worker stays counted
// (/healthz inflight_native_calls) until Honcho really answers, and the gateway never re-sends it.

const CREATE = '/v3/workspaces/hermes/conclusions';

async function health(m: MemoryGateway): Promise<{ inflight_native_calls: number; memory_unresolved_mutations: number }> {
  return (await (await fetch(`${m.gw.url}/healthz`)).json()) as { inflight_native_calls: number; memory_unresolved_mutations: number };
}

describe('memory timeouts', () => {
  let m: MemoryGateway;
  before(async () => {
    m = await startMemoryGateway({ limits: { memoryTimeoutSeconds: 1 } });
  });
  after(async () => m.close());

  for (const era of ['modern', 'legacy'] as Era[]) {
    test(`${era}: a conclusion create held past the budget answers state unknown, stays counted until Honcho answers, and is never re-sent`, async () => {
      const client = await connect(m.gw.mcpUrl, era);
      const conclusion = `Ada reviews every ${era} migration before it ships`;
      const hold = m.standin.hold((c) => c.method === 'POST' && c.path === CREATE);
      let released = false;
      try {
        const before = m.callsTo('POST', CREATE).length;
        const started = Date.now();
        const { data, isError } = await viaBridge(client, 'memory_conclude', { kind: 'decision', conclusion });
        assert.equal(isError, true);
        assert.equal(data.error, 'MEMORY_OUTCOME_UNKNOWN', JSON.stringify(data));
        assert.equal(data.state, 'unknown');
        assert.equal(data.operation, 'create');
        assert.ok(Date.now() - started < 5000, 'answered at the 1 s budget, not when Honcho answered');
        await hold.arrived;

        // The worker is still running: counted, and reported as an unresolved mutation.
        const h = await health(m);
        assert.ok(h.inflight_native_calls > 0, JSON.stringify(h));
        assert.equal(h.memory_unresolved_mutations, 1);

        // A retry of the same conclusion is refused, not replayed.
        const retry = await viaBridge(client, 'memory_conclude', { kind: 'decision', conclusion });
        assert.equal(retry.data.error, 'MEMORY_MUTATION_PENDING', JSON.stringify(retry.data));
        const listed = await viaBridge(client, 'memory_conclude', { action: 'list' });
        assert.equal((listed.data.unresolved as unknown[]).length, 1);
        assert.equal(m.callsTo('POST', CREATE).length, before + 1, 'sent exactly once');

        // Still counted a while later: nothing ends the worker but Honcho's answer.
        await new Promise((r) => setTimeout(r, 300));
        assert.ok((await health(m)).inflight_native_calls > 0);

        hold.release();
        released = true;
        await until(async () => (await health(m)).inflight_native_calls === 0, 5000, 'the held create to settle');
        assert.equal((await health(m)).memory_unresolved_mutations, 0);
        assert.equal(m.callsTo('POST', CREATE).length, before + 1, 'never re-sent, even after it settled');

        // Reconciliation: the late outcome names the conclusion Honcho created, and list shows it once.
        const after = await viaBridge(client, 'memory_conclude', { action: 'list' });
        const late = (after.data.late_outcomes as Array<{ operation: string; outcome: string; id: string; kind: string }>)[0]!;
        assert.deepEqual([late.operation, late.outcome, late.kind], ['create', 'applied', 'decision']);
        const matching = (after.data.conclusions as Array<{ id: string; content: string }>).filter((c) => c.content === conclusion);
        assert.deepEqual(matching.map((c) => c.id), [late.id]);
        assert.deepEqual(after.data.unresolved, []);
      } finally {
        if (!released) hold.release();
        await client.close();
      }
    });
  }

  test('a server error after the create was sent is unknown too, and the SDK does not retry it', async () => {
    const client = await connect(m.gw.mcpUrl, 'legacy');
    try {
      const before = m.callsTo('POST', CREATE).length;
      m.standin.failNext((c) => c.method === 'POST' && c.path === CREATE, 503);
      const { data } = await viaBridge(client, 'memory_conclude', { kind: 'architecture', conclusion: 'Honcho calls never retry inside the gateway' });
      assert.equal(data.error, 'MEMORY_OUTCOME_UNKNOWN', JSON.stringify(data));
      assert.equal(data.state, 'unknown');
      assert.equal(m.callsTo('POST', CREATE).length, before + 1, 'a 503 is not retried (that would be a replay)');
      assert.equal((await health(m)).inflight_native_calls, 0, 'the request ended: nothing left running');
    } finally {
      await client.close();
    }
  });

  test('a read held past the budget answers MEMORY_TIMEOUT and stays counted until Honcho answers', async () => {
    const client = await connect(m.gw.mcpUrl, 'modern');
    const hold = m.standin.hold((c) => c.method === 'POST' && c.path.endsWith('/chat'));
    let released = false;
    try {
      const { data } = await viaBridge(client, 'memory_reasoning', { query: 'What does Ada prefer?' });
      assert.equal(data.error, 'MEMORY_TIMEOUT', JSON.stringify(data));
      await hold.arrived;
      assert.ok((await health(m)).inflight_native_calls > 0);
      assert.equal((await health(m)).memory_unresolved_mutations, 0, 'a read is not a mutation');
      hold.release();
      released = true;
      await until(async () => (await health(m)).inflight_native_calls === 0, 5000, 'the held read to settle');
    } finally {
      if (!released) hold.release();
      await client.close();
    }
  });
});
