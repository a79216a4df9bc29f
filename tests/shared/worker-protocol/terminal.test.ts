import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingRequests } from '../../../shared/worker-protocol/protocol.js';
import { terminalProtocol } from '../../../shared/worker-protocol/terminal.js';
import { assertTypeNames, decodeFromWorker } from '../../helpers/protocol.js';

// The terminal worker's protocol: 'exec' answered by 'result', 'shutdown', and 'ready'.

test('the terminal worker speaks exec and shutdown, and answers with ready and result', () => {
  assert.equal(terminalProtocol.kind, 'terminal worker');
  assertTypeNames(terminalProtocol, { toWorker: ['exec', 'shutdown'], fromWorker: ['ready', 'result'] });
  assert.equal(terminalProtocol.isReplyTo('exec', { type: 'result', id: '1', exitCode: 0, timedOut: false, output: '', outputBytes: 0 }), true);
  assert.equal(terminalProtocol.isReplyTo('exec', { type: 'ready' }), false);
});

test('an exec request is settled by its result, busy answer included', async () => {
  const pending = new PendingRequests(terminalProtocol);
  const sent: unknown[] = [];
  const reply = pending.request({ type: 'exec', command: 'true', cwd: '/', timeoutMs: 1000, stateDir: '/tmp/s', maxOutputBytes: 100 }, (m) => sent.push(m));
  assert.deepEqual(sent, [{ type: 'exec', command: 'true', cwd: '/', timeoutMs: 1000, stateDir: '/tmp/s', maxOutputBytes: 100, id: '1' }]);
  assert.equal(pending.settle({ type: 'ready' }), false);
  assert.equal(pending.settle({ type: 'result', id: '1', error: 'busy' }), true);
  assert.deepEqual(await reply, { type: 'result', id: '1', error: 'busy' });
});

test('a worker that sends a supervisor-side type fails the channel', () => {
  const r = decodeFromWorker(terminalProtocol, [{ type: 'ready' }, { type: 'shutdown' }, { type: 'result', id: '1' }]);
  assert.deepEqual(r, { messages: [{ type: 'ready' }], error: 'incoming frame has unknown type "shutdown"' });
});
