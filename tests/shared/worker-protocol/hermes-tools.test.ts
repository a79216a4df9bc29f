import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hermesToolsProtocol } from '../../../shared/worker-protocol/hermes-tools.js';
import { PendingRequests } from '../../../shared/worker-protocol/protocol.js';
import { assertTypeNames, decodeFromWorker } from '../../helpers/protocol.js';

// The Hermes tools worker's protocol: tools, call and status requests; configure and cancel without a reply.

test('the Hermes tools worker\'s message types in each direction', () => {
  assert.equal(hermesToolsProtocol.kind, 'Hermes tools worker');
  assertTypeNames(hermesToolsProtocol, {
    toWorker: ['configure', 'tools', 'call', 'status', 'cancel'],
    fromWorker: ['ready', 'tools-result', 'call-result', 'status-result'],
  });
});

test('tools, call and status are each settled by their own result type', async () => {
  const pending = new PendingRequests(hermesToolsProtocol);
  const tools = pending.request({ type: 'tools', withinMs: 10 }, () => undefined);
  const call = pending.request({ type: 'call', callId: 'c', name: 'web_search', arguments: {}, timeoutMs: 10, budgetName: 'x' }, () => undefined);
  const status = pending.request({ type: 'status', pingTimeoutMs: 10 }, () => undefined);
  assert.equal(pending.settle({ type: 'status-result', id: '1', status: { state: 'up', restarts: 0, failures: 0 } }), false);
  assert.equal(pending.settle({ type: 'tools-result', id: '2' }), false);
  assert.equal(pending.settle({ type: 'tools-result', id: '1', tools: [] }), true);
  assert.equal(pending.settle({ type: 'call-result', id: '2', failure: { code: 'HERMES_TOOLS_TIMEOUT', message: 't' } }), true);
  assert.equal(pending.settle({ type: 'status-result', id: '3', status: { state: 'starting', restarts: 0, failures: 0 } }), true);
  assert.deepEqual(await tools, { type: 'tools-result', id: '1', tools: [] });
  assert.equal((await call).failure?.code, 'HERMES_TOOLS_TIMEOUT');
  assert.equal((await status).status.state, 'starting');
});

test('cancel is never accepted from the worker', () => {
  assert.equal(decodeFromWorker(hermesToolsProtocol, [{ type: 'cancel', callId: 'c' }]).error, 'incoming frame has unknown type "cancel"');
});
