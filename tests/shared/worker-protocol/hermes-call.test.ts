import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hermesCallProtocol } from '../../../shared/worker-protocol/hermes-call.js';
import { PendingRequests } from '../../../shared/worker-protocol/protocol.js';
import { assertTypeNames, decodeFromWorker } from '../../helpers/protocol.js';

// The Hermes call worker's protocol: 'call' answered by 'result', with the 'committing' / 'proceed' handshake.

test('the Hermes call worker\'s message types in each direction', () => {
  assert.equal(hermesCallProtocol.kind, 'Hermes call worker');
  assertTypeNames(hermesCallProtocol, { toWorker: ['call', 'proceed'], fromWorker: ['ready', 'committing', 'result'] });
});

test('committing carries the call\'s id but does not settle it; the result does', async () => {
  const pending = new PendingRequests(hermesCallProtocol);
  const reply = pending.request({ type: 'call', module: 'cron', op: 'list', payload: {} }, () => undefined);
  assert.equal(hermesCallProtocol.isReplyTo('call', { type: 'committing', id: '1' }), false);
  assert.equal(pending.settle({ type: 'committing', id: '1' }), false);
  assert.equal(pending.size, 1);
  assert.equal(pending.settle({ type: 'result', id: '1', failure: { kind: 'unsupported', message: 'no cron' } }), true);
  assert.deepEqual(await reply, { type: 'result', id: '1', failure: { kind: 'unsupported', message: 'no cron' } });
});

test('proceed is never accepted from the worker', () => {
  assert.deepEqual(decodeFromWorker(hermesCallProtocol, [{ type: 'committing', id: '1' }, { type: 'proceed', id: '1' }]), {
    messages: [{ type: 'committing', id: '1' }],
    error: 'incoming frame has unknown type "proceed"',
  });
});
