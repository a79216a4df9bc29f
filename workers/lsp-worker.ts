import { DefinitionRequest, DocumentSymbolRequest, HoverRequest, ReferencesRequest, ResponseError } from 'vscode-languageserver-protocol/node';
import { lspProtocol, type LspAnswer, type LspProtocol, type LspQuery } from '../shared/worker-protocol/lsp.js';
import { Budget, LspFailure } from './lsp/budget.js';
import { fileDiagnostics } from './lsp/diagnostics.js';
import { SessionPool } from './lsp/pool.js';
import { spawnedServerPids, type ServerSession } from './lsp/session.js';
import { killEverythingStarted } from './runtime/reap.js';
import { runWorker } from './runtime/run-worker.js';

// The one long-lived LSP worker, in its own PID namespace like every worker: it runs the language
// servers (lsp/pool.ts) and answers the supervisor's queries (runQuery below: one LSP request, or
// the diagnostics verdict of lsp/diagnostics.ts), each within its own budget. Queries
// run concurrently; each gets exactly one answer. When the supervisor goes (its channel closes) or
// asks for 'shutdown', every server is stopped (shutdown/exit, then killed) and the worker exits,
// taking anything left in its namespace with it.
//
// It speaks the LSP worker protocol (shared/worker-protocol/lsp.ts).

const pool = new SessionPool((running) => channel.send({ type: 'servers', running }));
const budgets = new Map<string, Budget>();
let stopping = false;

// The supervisor gone: stop everything and exit. Asked to stop: stop everything, say so, and wait
// to be killed (an exit of its own would read as a crash to the supervisor).
const channel = runWorker(lspProtocol, { message: onMessage, lost: () => void shutdown(true), terminate: () => void shutdown(true) });

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

type Success = Extract<LspAnswer, { ok: true }>;

/**
 * One query on a session: the file is synced from disk, then the one LSP request is sent with the
 * query's cancellation token (diagnostics: lsp/diagnostics.ts). The raw LSP result goes back as
 * is; the supervisor shapes it.
 */
async function runQuery(session: ServerSession, q: LspQuery, budget: Budget): Promise<Omit<Success, 'type' | 'id' | 'ok'>> {
  const init = await budget.race(session.guard(session.ready));
  const serverInfo = init.serverInfo ? { serverInfo: { name: init.serverInfo.name, ...(init.serverInfo.version ? { version: init.serverInfo.version } : {}) } } : {};
  if (q.op === 'diagnostics') {
    const verdict = await fileDiagnostics(session, q.file, q.languageId, budget, q.settleMs);
    return { result: verdict.items, diagnosticModel: verdict.model, ...serverInfo };
  }
  // Sync and request in one turn on the document: a diagnostics call's close/reopen cannot land in between.
  const result = await session.withDocument(q.file, budget, async () => {
    const textDocument = { uri: await session.sync(q.file, q.languageId) };
    const position = q.position ?? { line: 0, character: 0 };
    const { connection } = session;
    switch (q.op) {
      case 'hover':
        return connection.sendRequest(HoverRequest.type, { textDocument, position }, budget.token);
      case 'definition':
        return connection.sendRequest(DefinitionRequest.type, { textDocument, position }, budget.token);
      case 'references':
        return connection.sendRequest(ReferencesRequest.type, { textDocument, position, context: { includeDeclaration: q.includeDeclaration ?? true } }, budget.token);
      case 'documentSymbol':
        return connection.sendRequest(DocumentSymbolRequest.type, { textDocument }, budget.token);
      default:
        throw new LspFailure('LSP_SERVER_FAILED', `unknown operation ${String(q.op)}`);
    }
  });
  return { result, ...serverInfo };
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
