import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Budget, LspFailure } from '../../../workers/lsp/budget.js';
import { monotonicMs } from '../../../shared/clock.js';

const timeout = (message: string) => (e: unknown) => e instanceof LspFailure && e.code === 'LSP_TIMEOUT' && e.name === 'LspFailure' && e.message === message;

test('work that finishes within the budget wins the race; the token stays uncancelled', async () => {
  const budget = new Budget(5000);
  assert.equal(await budget.race(Promise.resolve(42)), 42);
  await budget.sleep(5);
  assert.equal(budget.token.isCancellationRequested, false);
  assert.equal(budget.ended, false);
  assert.ok(budget.remaining() > 4000 && budget.remaining() <= 5000, String(budget.remaining()));
  budget.dispose();
});

test('the budget running out fails every wait with LSP_TIMEOUT naming the setting, and cancels the token', async () => {
  const budget = new Budget(40);
  const never = budget.race(new Promise<never>(() => {}));
  const sleeping = budget.sleep(10_000);
  const message = 'no answer within the 0 s budget (HERMES_MCP_LSP_CALL_TIMEOUT_SECONDS)';
  await assert.rejects(never, timeout(message));
  await assert.rejects(sleeping, timeout(message));
  assert.equal(budget.ended, true);
  assert.equal(budget.token.isCancellationRequested, true);
  assert.equal(budget.remaining(), 0);
  await assert.rejects(budget.race(new Promise(() => {})), timeout(message), 'a wait started afterwards fails at once');
  budget.dispose();
});

test('end() by the caller: the given reason, at once, before the deadline', async () => {
  const budget = new Budget(60_000);
  const waiting = budget.race(new Promise(() => {}));
  budget.end('the client cancelled');
  await assert.rejects(waiting, timeout('the client cancelled'));
  assert.equal(budget.ended, true);
  assert.equal(budget.token.isCancellationRequested, true);
  assert.ok(budget.deadline > monotonicMs() + 50_000);
});

test('the message rounds the budget to whole seconds', async () => {
  const budget = new Budget(1600);
  const waiting = budget.race(new Promise(() => {}));
  await assert.rejects(waiting, timeout('no answer within the 2 s budget (HERMES_MCP_LSP_CALL_TIMEOUT_SECONDS)'));
});
