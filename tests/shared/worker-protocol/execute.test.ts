import assert from 'node:assert/strict';
import { test } from 'node:test';
import { executeCommandsProtocol, executeUnitProtocol } from '../../../shared/worker-protocol/execute.js';
import { PendingRequests } from '../../../shared/worker-protocol/protocol.js';
import { assertTypeNames, decodeFromWorker } from '../../helpers/protocol.js';

// The execute_code unit's protocol, and the narrower one its command helper speaks.

test('the unit protocol: exec to the unit; ready, done and result from it', () => {
  assert.equal(executeUnitProtocol.kind, 'execute_code unit');
  assertTypeNames(executeUnitProtocol, { toWorker: ['exec'], fromWorker: ['ready', 'done', 'result'] });
  assert.equal(executeUnitProtocol.isReplyTo('exec', { type: 'result', id: '1', error: 'x' }), true);
  assert.equal(executeUnitProtocol.isReplyTo('exec', { type: 'done', exitCode: 0, signal: null }), false);
});

test('the command helper protocol accepts only result from the helper', () => {
  assert.equal(executeCommandsProtocol.kind, 'execute_code command helper');
  assertTypeNames(executeCommandsProtocol, { toWorker: ['exec'], fromWorker: ['result'] });
  assert.deepEqual(decodeFromWorker(executeCommandsProtocol, [{ type: 'result', id: '1' }, { type: 'done', exitCode: 0, signal: null }]), {
    messages: [{ type: 'result', id: '1' }],
    error: 'incoming frame has unknown type "done"',
  });
  assert.deepEqual(decodeFromWorker(executeCommandsProtocol, [{ type: 'ready' }]), { messages: [], error: 'incoming frame has unknown type "ready"' });
});

test('a unit\'s done does not settle a pending exec; its result does', async () => {
  const pending = new PendingRequests(executeUnitProtocol);
  const reply = pending.request({ type: 'exec', command: 'ls', cwd: '/', timeoutMs: 5, stateDir: '/s', maxOutputBytes: 9 }, () => undefined);
  assert.equal(pending.settle({ type: 'done', exitCode: 0, signal: null }), false);
  assert.equal(pending.settle({ type: 'result', id: '1', exitCode: 0, timedOut: false, output: 'a', outputBytes: 1 }), true);
  assert.equal((await reply).type, 'result');
});
