import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MutationLedger } from '../../../supervisor/tools/memory/ledger.js';

// The mutation ledger on its own (fake clock): every unknown outcome is recorded the same way.

test('an unconfirmed end keeps the mutation unresolved and guarded for the hold, then lists it as a late unknown', () => {
  let now = Date.UTC(2026, 0, 1);
  const ledger = new MutationLedger(() => now);
  ledger.begin({ key: 'create:abc', operation: 'create', kind: 'decision', content_sha256: 'abc' });
  assert.equal(ledger.endUnconfirmed('create:abc', 'Honcho answered HTTP 503', 300_000), undefined, 'its call had not answered yet');
  assert.ok(ledger.has('create:abc'), 'a duplicate is still refused');
  assert.equal(ledger.unresolvedCount, 1);
  const [u] = ledger.unresolved();
  assert.deepEqual([u!.request, u!.error, u!.duplicate_guard_until], ['ended', 'Honcho answered HTTP 503', new Date(now + 300_000).toISOString()]);
  // A later settle of the same key (cannot normally happen) does not erase the unknown.
  assert.equal(ledger.settle('create:abc', { outcome: 'failed' }), undefined);
  assert.ok(ledger.has('create:abc'));

  now += 300_000;
  assert.equal(ledger.has('create:abc'), false, 'the guard ends after the hold');
  assert.deepEqual(ledger.unresolved(), []);
  const [late] = ledger.late();
  assert.deepEqual([late!.operation, late!.outcome, late!.error], ['create', 'unknown', 'Honcho answered HTTP 503']);
});

test('a timed-out (running) mutation that later ends unconfirmed stays unresolved; one that settles leaves a late outcome', () => {
  const ledger = new MutationLedger();
  ledger.begin({ key: 'delete:x', operation: 'delete', id: 'x' });
  ledger.markUnknown('delete:x');
  assert.equal(ledger.unresolved()[0]!.request, 'running');
  assert.ok(ledger.endUnconfirmed('delete:x', 'connection dropped', 60_000), 'a late end of an unknown call is reported');
  assert.equal(ledger.unresolved()[0]!.request, 'ended');

  ledger.begin({ key: 'delete:y', operation: 'delete', id: 'y' });
  ledger.markUnknown('delete:y');
  const late = ledger.settle('delete:y', { outcome: 'applied' });
  assert.deepEqual([late!.id, late!.outcome], ['y', 'applied']);
  assert.equal(ledger.has('delete:y'), false);
});
