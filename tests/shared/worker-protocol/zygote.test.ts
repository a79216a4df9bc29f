import assert from 'node:assert/strict';
import { test } from 'node:test';
import { zygoteProtocol } from '../../../shared/worker-protocol/zygote.js';
import { assertTypeNames, decodeFromWorker } from '../../helpers/protocol.js';

// The execute_code unit zygote's protocol: spawn, kill and shutdown; ready, unavailable and exit.

test('the zygote\'s message types in each direction', () => {
  assert.equal(zygoteProtocol.kind, 'execute_code unit zygote');
  assertTypeNames(zygoteProtocol, { toWorker: ['spawn', 'kill', 'shutdown'], fromWorker: ['ready', 'unavailable', 'exit'] });
});

test('a unit\'s hello belongs to the unit connection, not to the zygote channel', () => {
  assert.deepEqual(decodeFromWorker(zygoteProtocol, [{ type: 'exit', id: 'u1', code: 0, signal: null }, { type: 'hello', pid: 5 }]), {
    messages: [{ type: 'exit', id: 'u1', code: 0, signal: null }],
    error: 'incoming frame has unknown type "hello"',
  });
  assert.deepEqual(decodeFromWorker(zygoteProtocol, [{ type: 'unavailable', reason: 'no user namespaces' }]), {
    messages: [{ type: 'unavailable', reason: 'no user namespaces' }],
  });
});
