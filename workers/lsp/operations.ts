import { DefinitionRequest, DocumentSymbolRequest, HoverRequest, ReferencesRequest } from 'vscode-languageserver-protocol/node';
import type { LspAnswer, LspQuery } from '../../shared/worker-protocol/lsp.js';
import { LspFailure, type Budget } from './budget.js';
import { fileDiagnostics } from './diagnostics.js';
import type { ServerSession } from './session.js';

// One query on a ready session: the file is synced from disk, then the one LSP request is sent
// with the query's cancellation token. The raw LSP result goes back as is; the supervisor shapes it.

type Success = Extract<LspAnswer, { ok: true }>;

export async function runQuery(session: ServerSession, q: LspQuery, budget: Budget): Promise<Omit<Success, 'type' | 'id' | 'ok'>> {
  const init = await budget.race(session.guard(session.ready));
  const serverInfo = init.serverInfo ? { serverInfo: { name: init.serverInfo.name, ...(init.serverInfo.version ? { version: init.serverInfo.version } : {}) } } : {};
  if (q.op === 'diagnostics') {
    const verdict = await fileDiagnostics(session, q.file, q.languageId, budget, q.settleMs);
    return { result: verdict.items, diagnosticModel: verdict.model, ...serverInfo };
  }
  const uri = await budget.race(session.guard(session.sync(q.file, q.languageId)));
  const textDocument = { uri };
  const position = q.position ?? { line: 0, character: 0 };
  const { connection } = session;
  const send = <T>(work: Promise<T>) => budget.race(session.guard(work));
  switch (q.op) {
    case 'hover':
      return { result: await send(connection.sendRequest(HoverRequest.type, { textDocument, position }, budget.token)), ...serverInfo };
    case 'definition':
      return { result: await send(connection.sendRequest(DefinitionRequest.type, { textDocument, position }, budget.token)), ...serverInfo };
    case 'references':
      return {
        result: await send(connection.sendRequest(ReferencesRequest.type, { textDocument, position, context: { includeDeclaration: q.includeDeclaration ?? true } }, budget.token)),
        ...serverInfo,
      };
    case 'documentSymbol':
      return { result: await send(connection.sendRequest(DocumentSymbolRequest.type, { textDocument }, budget.token)), ...serverInfo };
    default:
      throw new LspFailure('LSP_SERVER_FAILED', `unknown operation ${String(q.op)}`);
  }
}
