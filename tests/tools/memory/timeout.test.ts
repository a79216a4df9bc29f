import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, viaBridge, type Era } from '../../helpers/gateway.js';
import { startMemoryGateway, until, type MemoryGateway } from '../../helpers/memory.js';

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
    // Warm first (the worker started, the Honcho SDK loaded, the peers made), repeating until a
    // call answers: on a busy host that start-up alone can outrun the 1 s budget, and a test's
    // first call would then time out before it reaches the request it holds.
    const client = await connect(m.gw.mcpUrl, 'modern');
    try {
      await until(async () => !(await viaBridge(client, 'memory_conclude', { action: 'list' })).isError, 60_000, 'memory to answer once before any hold');
    } finally {
      await client.close();
    }
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
        const started = performance.now();
        const { data, isError } = await viaBridge(client, 'memory_conclude', { kind: 'decision', conclusion });
        assert.equal(isError, true);
        assert.equal(data.error, 'MEMORY_OUTCOME_UNKNOWN', JSON.stringify(data));
        assert.equal(data.state, 'unknown');
        assert.equal(data.operation, 'create');
        assert.ok(performance.now() - started < 5000, 'answered at the 1 s budget, not when Honcho answered');
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

// A mutation that dies after it was sent (a 5xx, a dropped connection) answers state unknown through
// the same ledger path as a timeout: listed as unresolved with its error, and an identical mutation
// is refused for memoryWorkerMaxSeconds (2 s here), after which it stays listed as a late `unknown`.
describe('memory mutations that end unconfirmed', () => {
  let m: MemoryGateway;
  before(async () => {
    m = await startMemoryGateway({ limits: { memoryTimeoutSeconds: 1, memoryWorkerMaxSeconds: 2 } });
  });
  after(async () => m.close());

  type Unresolved = { operation: string; request: string; error?: string; id?: string; kind?: string; duplicate_guard_until?: string };

  test('a create answered 503 is unknown, listed as unresolved, guarded against a replay, then kept as a late unknown', async () => {
    const client = await connect(m.gw.mcpUrl, 'legacy');
    const conclusion = 'Honcho calls never retry inside the gateway';
    try {
      const before = m.callsTo('POST', CREATE).length;
      m.standin.failNext((c) => c.method === 'POST' && c.path === CREATE, 503);
      const { data } = await viaBridge(client, 'memory_conclude', { kind: 'architecture', conclusion });
      assert.equal(data.error, 'MEMORY_OUTCOME_UNKNOWN', JSON.stringify(data));
      assert.equal(data.state, 'unknown');
      assert.equal(m.callsTo('POST', CREATE).length, before + 1, 'a 503 is not retried (that would be a replay)');
      const h = await health(m);
      assert.equal(h.inflight_native_calls, 0, 'the request ended: nothing left running');
      assert.equal(h.memory_unresolved_mutations, 1, 'but its outcome is unresolved');

      const listed = await viaBridge(client, 'memory_conclude', { action: 'list' });
      const unresolved = listed.data.unresolved as Unresolved[];
      assert.equal(unresolved.length, 1, JSON.stringify(listed.data));
      assert.deepEqual([unresolved[0]!.operation, unresolved[0]!.kind, unresolved[0]!.request], ['create', 'architecture', 'ended']);
      assert.match(unresolved[0]!.error!, /503/);
      assert.ok(unresolved[0]!.duplicate_guard_until);

      const retry = await viaBridge(client, 'memory_conclude', { kind: 'architecture', conclusion });
      assert.equal(retry.data.error, 'MEMORY_MUTATION_PENDING', JSON.stringify(retry.data));
      assert.equal(retry.data.request, 'ended');
      assert.equal(m.callsTo('POST', CREATE).length, before + 1, 'the retry was not sent');

      // After memoryWorkerMaxSeconds the guard ends; the mutation stays listed as a late unknown.
      await until(async () => (await health(m)).memory_unresolved_mutations === 0, 5000, 'the duplicate guard to end');
      const later = await viaBridge(client, 'memory_conclude', { action: 'list' });
      assert.deepEqual(later.data.unresolved, []);
      const late = (later.data.late_outcomes as Array<{ operation: string; outcome: string; error?: string }>)[0]!;
      assert.deepEqual([late.operation, late.outcome], ['create', 'unknown']);
      assert.match(late.error!, /503/);
      const again = await viaBridge(client, 'memory_conclude', { kind: 'architecture', conclusion });
      assert.equal(again.data.state, 'created', JSON.stringify(again.data));
    } finally {
      await client.close();
    }
  });

  test('a delete whose connection drops is unknown and listed as unresolved; a retry is refused, not re-sent', async () => {
    const client = await connect(m.gw.mcpUrl, 'modern');
    try {
      const created = await viaBridge(client, 'memory_conclude', { kind: 'decision', conclusion: 'Releases are tagged from main' });
      const id = (created.data.conclusion as { id: string }).id;
      const DELETE_PATH = `${CREATE}/${id}`;
      m.standin.failNext((c) => c.method === 'DELETE' && c.path === DELETE_PATH, 'drop');
      const { data } = await viaBridge(client, 'memory_conclude', { action: 'delete', id });
      assert.equal(data.error, 'MEMORY_OUTCOME_UNKNOWN', JSON.stringify(data));
      assert.equal(data.state, 'unknown');
      assert.equal(m.callsTo('DELETE', DELETE_PATH).length, 1);
      assert.equal(m.callsTo('DELETE', DELETE_PATH)[0]!.status, 0, 'the stand-in dropped it');

      const listed = await viaBridge(client, 'memory_conclude', { action: 'list' });
      const unresolved = listed.data.unresolved as Unresolved[];
      assert.deepEqual(unresolved.map((u) => [u.operation, u.id, u.request]), [['delete', id, 'ended']]);
      assert.ok(unresolved[0]!.error);

      const retry = await viaBridge(client, 'memory_conclude', { action: 'delete', id });
      assert.equal(retry.data.error, 'MEMORY_MUTATION_PENDING', JSON.stringify(retry.data));
      assert.equal(m.callsTo('DELETE', DELETE_PATH).length, 1, 'not re-sent');
      await until(async () => (await health(m)).memory_unresolved_mutations === 0, 5000, 'the duplicate guard to end');
    } finally {
      await client.close();
    }
  });

  test('a refusal after sending (4xx) is a definite failure: not unresolved, not guarded', async () => {
    const client = await connect(m.gw.mcpUrl, 'modern');
    try {
      m.standin.failNext((c) => c.method === 'POST' && c.path === CREATE, 422);
      const { data } = await viaBridge(client, 'memory_conclude', { kind: 'preference', conclusion: 'Ada prefers squash merges' });
      assert.equal(data.error, 'MEMORY_REJECTED', JSON.stringify(data));
      assert.equal(data.state, 'failed');
      assert.equal((await health(m)).memory_unresolved_mutations, 0);
      const retry = await viaBridge(client, 'memory_conclude', { kind: 'preference', conclusion: 'Ada prefers squash merges' });
      assert.equal(retry.data.state, 'created', JSON.stringify(retry.data));
    } finally {
      await client.close();
    }
  });
});
