import { CancellationTokenSource, type CancellationToken } from 'vscode-languageserver-protocol/node';
import type { LspFailureCode } from '../../shared/worker-protocol/lsp.js';
import { monotonicMs } from '../../shared/clock.js';

// One query's time budget. Every wait of the query races `expired`, so a server that never answers
// (or never publishes diagnostics) ends the query with LSP_TIMEOUT, never with a verdict; and the
// LSP requests of the query carry `token`, whose cancellation makes vscode-jsonrpc send
// $/cancelRequest so the server can drop the work too.

export class LspFailure extends Error {
  constructor(
    readonly code: LspFailureCode,
    message: string,
  ) {
    super(message);
    this.name = 'LspFailure';
  }
}

export class Budget {
  private readonly source = new CancellationTokenSource();
  private readonly timer: NodeJS.Timeout;
  private rejectExpired!: (error: LspFailure) => void;
  readonly expired: Promise<never>;
  readonly deadline: number;
  /** Set once the budget ran out or the caller gave up: nothing more should be sent for this query. */
  ended = false;

  constructor(readonly ms: number) {
    this.deadline = monotonicMs() + ms;
    this.expired = new Promise<never>((_, reject) => (this.rejectExpired = reject));
    this.expired.catch(() => {}); // observed by race(); never an unhandled rejection
    this.timer = setTimeout(() => this.end(`no answer within the ${Math.round(ms / 1000)} s budget (HERMES_MCP_LSP_CALL_TIMEOUT_SECONDS)`), ms);
  }

  get token(): CancellationToken {
    return this.source.token;
  }

  remaining(): number {
    return Math.max(0, this.deadline - monotonicMs());
  }

  /** The caller gave up (or the budget ran out): cancel in-flight requests, fail every wait. */
  end(reason: string): void {
    this.ended = true;
    clearTimeout(this.timer);
    this.source.cancel();
    this.rejectExpired(new LspFailure('LSP_TIMEOUT', reason));
  }

  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.expired]);
  }

  sleep(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    return this.race(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))).finally(() => clearTimeout(timer));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.source.dispose();
  }
}
