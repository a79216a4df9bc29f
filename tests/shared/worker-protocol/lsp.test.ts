import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lspProtocol } from '../../../shared/worker-protocol/lsp.js';
import { PendingRequests } from '../../../shared/worker-protocol/protocol.js';
import { assertTypeNames, decodeFromWorker } from '../../helpers/protocol.js';

// The LSP worker's protocol: 'query' answered by 'answer'; 'servers' and 'stopped' are reports.

test('the LSP worker\'s message types in each direction', () => {
  assert.equal(lspProtocol.kind, 'LSP worker');
  assertTypeNames(lspProtocol, { toWorker: ['query', 'cancel', 'shutdown'], fromWorker: ['ready', 'answer', 'servers', 'stopped'] });
});

test('a query is settled by its answer, failures included; a servers report settles nothing', async () => {
  const pending = new PendingRequests(lspProtocol);
  const reply = pending.request(
    {
      type: 'query', key: 'k1', launch: { name: 'ts', argv: ['/bin/ts'], env: {} }, root: '/r', file: '/r/a.ts', languageId: 'typescript',
      op: 'hover', budgetMs: 10, idleMs: 10, settleMs: 1,
    },
    () => undefined,
  );
  assert.equal(pending.settle({ type: 'servers', running: [] }), false);
  assert.equal(pending.settle({ type: 'answer', id: '1', ok: false, code: 'LSP_TIMEOUT', message: 'slow' }), true);
  assert.deepEqual(await reply, { type: 'answer', id: '1', ok: false, code: 'LSP_TIMEOUT', message: 'slow' });
});

test('a query or shutdown from the worker fails the channel', () => {
  assert.deepEqual(decodeFromWorker(lspProtocol, [{ type: 'stopped' }, { type: 'query', id: '1' }]), {
    messages: [{ type: 'stopped' }],
    error: 'incoming frame has unknown type "query"',
  });
});
