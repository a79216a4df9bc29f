import assert from 'node:assert/strict';
import { test } from 'node:test';
import { graphProtocol } from '../../../shared/worker-protocol/graph.js';
import { PendingRequests } from '../../../shared/worker-protocol/protocol.js';
import { assertTypeNames, decodeFromWorker } from '../../helpers/protocol.js';

// The graph worker's protocol: four requests, each with its own -result reply, and 'configure'.

test('the graph worker\'s message types in each direction', () => {
  assert.equal(graphProtocol.kind, 'graph worker');
  assertTypeNames(graphProtocol, {
    toWorker: ['configure', 'schema', 'call', 'probe', 'status'],
    fromWorker: ['ready', 'schema-result', 'call-result', 'probe-result', 'status-result'],
  });
});

test('each request is answered by its own result type only', () => {
  const replies = { schema: 'schema-result', call: 'call-result', probe: 'probe-result', status: 'status-result' } as const;
  for (const [request, reply] of Object.entries(replies) as Array<[keyof typeof replies, string]>) {
    for (const other of Object.values(replies)) {
      const message = { type: other, id: '1', state: 'ok', sessions: [] } as Parameters<typeof graphProtocol.isReplyTo>[1];
      assert.equal(graphProtocol.isReplyTo(request, message), other === reply, `${request} <- ${other}`);
    }
  }
});

test('a probe is settled by its probe-result, not by a call-result of the same id', async () => {
  const pending = new PendingRequests(graphProtocol);
  const reply = pending.request({ type: 'probe', cwd: '/repo', timeoutMs: 100 }, () => undefined);
  assert.equal(pending.settle({ type: 'call-result', id: '1' }), false);
  assert.equal(pending.settle({ type: 'probe-result', id: '1', state: 'busy' }), true);
  assert.deepEqual(await reply, { type: 'probe-result', id: '1', state: 'busy' });
});

test('a graph worker may not send a request type', () => {
  assert.equal(decodeFromWorker(graphProtocol, [{ type: 'configure' }]).error, 'incoming frame has unknown type "configure"');
});
