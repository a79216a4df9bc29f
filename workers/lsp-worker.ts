import { ResponseError } from 'vscode-languageserver-protocol/node';
import { becomeSubreaper } from '../shared/subreaper.js';
import { lspProtocol, type LspProtocol, type LspQuery } from '../shared/worker-protocol/lsp.js';
import { Budget, LspFailure } from './lsp/budget.js';
import { runQuery } from './lsp/operations.js';
import { SessionPool } from './lsp/pool.js';
import { spawnedServerPids } from './lsp/session.js';
import { openSupervisorChannel } from './runtime/channel.js';
import { killEverythingStarted } from './runtime/reap.js';

// The one long-lived LSP worker, in its own PID namespace like every worker: it runs the language
// servers (lsp/pool.ts) and answers the supervisor's queries, each within its own budget. Queries
// run concurrently; each gets exactly one answer. When the supervisor goes (its channel closes) or
// asks for 'shutdown', every server is stopped (shutdown/exit, then killed) and the worker exits,
// taking anything left in its namespace with it.
//
// It speaks the LSP worker protocol (shared/worker-protocol/lsp.ts).

becomeSubreaper();
const pool = new SessionPool((running) => channel.send({ type: 'servers', running }));
const budgets = new Map<string, Budget>();
let stopping = false;

// The supervisor gone: stop everything and exit. Asked to stop: stop everything, say so, and wait
// to be killed (an exit of its own would read as a crash to the supervisor).
const channel = openSupervisorChannel(lspProtocol, onMessage, () => void shutdown(true));
process.on('SIGTERM', () => void shutdown(true)); // as PID 1 of the namespace there is no default TERM action
channel.send({ type: 'ready' });

function onMessage(message: LspProtocol['toWorker']): void {
  if (message.type === 'query') void answer(message);
  else if (message.type === 'cancel') budgets.get(message.target)?.end('the call was cancelled');
  else void shutdown(false);
}

async function answer(q: LspQuery): Promise<void> {
  const budget = new Budget(q.budgetMs);
  budgets.set(q.key, budget);
  try {
    const session = pool.acquire(q.launch, q.root);
    try {
      channel.send({ type: 'answer', id: q.id, ok: true, ...(await runQuery(session, q, budget)) });
    } finally {
      pool.release(session, q.idleMs);
    }
  } catch (e) {
    const failure = asFailure(e, q);
    channel.send({ type: 'answer', id: q.id, ok: false, code: failure.code, message: failure.message });
  } finally {
    budget.dispose();
    budgets.delete(q.key);
  }
}

function asFailure(e: unknown, q: LspQuery): LspFailure {
  if (e instanceof LspFailure) return e;
  // An error answer from the server (ResponseError) or a broken connection.
  const detail = e instanceof ResponseError ? `${e.message} (code ${e.code})` : e instanceof Error ? e.message : String(e);
  return new LspFailure('LSP_SERVER_FAILED', `${q.launch.name} language server failed ${q.op}: ${detail}`);
}

async function shutdown(exit: boolean): Promise<void> {
  if (!stopping) {
    stopping = true;
    for (const budget of budgets.values()) budget.end('the LSP worker is stopping');
    await pool.stopAll().catch(() => {});
    killEverythingStarted(spawnedServerPids);
    channel.send({ type: 'stopped' });
  }
  if (exit) process.exit(0);
}
