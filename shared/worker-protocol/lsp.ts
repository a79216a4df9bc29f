import { defineProtocol, type ReadyMessage } from './protocol.js';

// The LSP worker (workers/lsp-worker.ts): one long-lived worker that runs every language server
// the gateway starts, each one per (server, workspace root), started on first use and stopped when
// idle. Each 'query' is one read-only LSP operation on one file, answered by exactly one 'answer'
// with the same id: the server's raw LSP result (the supervisor shapes it for its clients), or a
// failure code. The supervisor has already checked everything a query names (the file is inside
// the roots, the workspace is trusted, the program exists); the worker only speaks LSP.
// 'cancel' gives up on a query (the MCP call was cancelled): the worker sends $/cancelRequest and
// answers it LSP_TIMEOUT. It names the query by `key` (the channel assigns `id` while sending). 'servers' reports the running servers whenever that set changes, so
// /readyz and lsp_status read it without a round trip that could queue behind a slow call.

export type LspOperation = 'hover' | 'definition' | 'references' | 'documentSymbol' | 'diagnostics';

/** How to start one language server. */
export type LspLaunch = {
  /** The configured server's name (the pool key with the root). */
  name: string;
  /** argv with an absolute program path (resolved on the gateway's PATH). */
  argv: string[];
  /** The server's whole environment. */
  env: Record<string, string>;
  initializationOptions?: unknown;
};

export type LspQuery = {
  type: 'query';
  id: string;
  /** The supervisor's own name for the query, chosen before sending, which 'cancel' targets. */
  key: string;
  launch: LspLaunch;
  /** The workspace root (real path) the server is started in. */
  root: string;
  /** The file (real path), read fresh by the worker for every query. */
  file: string;
  languageId: string;
  op: LspOperation;
  /** 0-based, as LSP counts. */
  position?: { line: number; character: number };
  includeDeclaration?: boolean;
  /** The whole query's budget, server start included. */
  budgetMs: number;
  /** How long a server may sit unused before it is stopped. */
  idleMs: number;
  /** Push-model diagnostics: how long no further publish must arrive before the last one is the verdict. */
  settleMs: number;
};

export type LspFailureCode = 'LSP_TIMEOUT' | 'LSP_SERVER_FAILED' | 'FILE_NOT_FOUND';

export type LspAnswer =
  | { type: 'answer'; id: string; ok: true; result: unknown; diagnosticModel?: 'pull' | 'push'; serverInfo?: { name: string; version?: string } }
  | { type: 'answer'; id: string; ok: false; code: LspFailureCode; message: string };

export type RunningServer = {
  server: string;
  root: string;
  pid: number | null;
  state: 'starting' | 'ready';
  startedAt: number;
  lastUsedAt: number;
};

export type LspProtocol = {
  toWorker: LspQuery | { type: 'cancel'; target: string } | { type: 'shutdown' };
  /** 'stopped': after 'shutdown', every server is gone; the supervisor then kills the worker. */
  fromWorker: ReadyMessage | LspAnswer | { type: 'servers'; running: RunningServer[] } | { type: 'stopped' };
  replies: { query: LspAnswer };
};

export const lspProtocol = defineProtocol<LspProtocol>('LSP worker', {
  toWorker: { query: true, cancel: true, shutdown: true },
  fromWorker: { ready: true, answer: true, servers: true, stopped: true },
  replies: { query: 'answer' },
});
