import assert from 'node:assert/strict';
import { test } from 'node:test';
import { processProtocol } from '../../../shared/worker-protocol/process.js';
import { assertTypeNames, decodeFromWorker } from '../../helpers/protocol.js';

// The process worker's protocol: commands and reports only, no request/response pair.

test('the process worker\'s message types in each direction', () => {
  assert.equal(processProtocol.kind, 'process worker');
  assertTypeNames(processProtocol, {
    toWorker: ['start', 'stdin', 'close-stdin', 'resize', 'terminate', 'kill'],
    fromWorker: ['ready', 'started', 'output', 'screen', 'exit'],
  });
});

test('the worker\'s reports are delivered in order until a supervisor-side type arrives', () => {
  const frames = [
    { type: 'ready' },
    { type: 'started', pid: 12 },
    { type: 'output', data: 'hi\n' },
    { type: 'screen', data: '$ ' },
    { type: 'exit', exitCode: null, signal: 'SIGKILL', killed: true },
  ];
  assert.deepEqual(decodeFromWorker(processProtocol, frames), { messages: frames });
  assert.deepEqual(decodeFromWorker(processProtocol, [{ type: 'output', data: 'a' }, { type: 'kill' }, { type: 'exit' }]), {
    messages: [{ type: 'output', data: 'a' }],
    error: 'incoming frame has unknown type "kill"',
  });
});
