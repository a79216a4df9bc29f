import { DocumentDiagnosticRequest, LSPErrorCodes, ResponseError, type Diagnostic } from 'vscode-languageserver-protocol/node';
import { LspFailure, type Budget } from './budget.js';
import type { ServerSession } from './session.js';
import { monotonicMs } from '../../shared/clock.js';

// A file's diagnostics from either model a server offers:
// - pull (`textDocument/diagnostic`): declared statically as `diagnosticProvider`, or registered
//   dynamically (pyright does, because the client declares dynamicRegistration, and then stops
//   pushing). The report is the verdict; ServerCancelled with retriggerRequest is retried.
// - push (`textDocument/publishDiagnostics`): the file is reopened so the server publishes afresh,
//   then the verdict is the last publish once none has followed it for a quiet period: servers
//   publish in stages (typescript-language-server: syntactic, then semantic, then suggestions),
//   and the first may be empty. The quiet period grows with how long the first publish took, as a
//   cold server is slow at every stage.
// While waiting for a push, a pull registration that arrives (a server registering right after
// `initialized`) switches to pull. Running out of budget is LSP_TIMEOUT, never an empty verdict.

const RETRIGGER_DELAY_MS = 100;

export interface DiagnosticsVerdict {
  items: Diagnostic[];
  model: 'pull' | 'push';
}

/** The pull identifier when the server offers pull diagnostics (static or registered), else undefined. */
function pullSupport(session: ServerSession, staticProvider: unknown): { identifier?: string } | undefined {
  for (const r of session.registrations.values()) {
    if (r.method === DocumentDiagnosticRequest.method) {
      const identifier = (r.registerOptions as { identifier?: unknown } | undefined)?.identifier;
      return typeof identifier === 'string' ? { identifier } : {};
    }
  }
  if (staticProvider && typeof staticProvider === 'object') {
    const identifier = (staticProvider as { identifier?: unknown }).identifier;
    return typeof identifier === 'string' ? { identifier } : {};
  }
  return undefined;
}

export async function fileDiagnostics(session: ServerSession, file: string, languageId: string, budget: Budget, settleMs: number): Promise<DiagnosticsVerdict> {
  const init = await budget.race(session.guard(session.ready));
  const staticProvider = init.capabilities.diagnosticProvider;
  const pull = pullSupport(session, staticProvider);
  if (pull) return { items: await pullDiagnostics(session, file, languageId, pull.identifier, budget), model: 'pull' };

  // The reopen and the wait for its publishes are one turn on the document: a concurrent call's
  // close/open would otherwise publish in the middle of this one's wait.
  const pushed = await session.withDocument(file, budget, async (): Promise<Diagnostic[] | 'pull'> => {
    const started = monotonicMs();
    const baseline = await session.reopen(file, languageId, budget);
    // The first publish for this opening, unless the server registers pull diagnostics meanwhile.
    for (;;) {
      if (pullSupport(session, staticProvider)) return 'pull';
      if (session.pushedAfter(file, baseline)) break;
      await budget.race(session.guard(session.nextChange()));
    }
    const first = session.pushedAfter(file, baseline)!;
    const quietMs = Math.max(settleMs, Math.round((first.at - started) / 2));
    for (;;) {
      const last = session.pushedAfter(file, baseline)!;
      const wait = last.at + quietMs - monotonicMs();
      if (wait <= 0) return last.items;
      await budget.race(session.guard(Promise.race([session.nextChange(), new Promise((r) => setTimeout(r, wait))])));
    }
  });
  if (pushed !== 'pull') return { items: pushed, model: 'push' };
  const registered = pullSupport(session, staticProvider)!;
  return { items: await pullDiagnostics(session, file, languageId, registered.identifier, budget), model: 'pull' };
}

async function pullDiagnostics(session: ServerSession, file: string, languageId: string, identifier: string | undefined, budget: Budget): Promise<Diagnostic[]> {
  return session.withDocument(file, budget, async () => {
    const uri = await session.sync(file, languageId);
    for (;;) {
      try {
        const report = await budget.race(
          session.guard(session.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri }, ...(identifier ? { identifier } : {}) }, budget.token)),
        );
        // No previousResultId is ever sent, so a conforming server answers `full`; anything else is no verdict.
        if (report.kind === 'full') return report.items;
        throw new LspFailure('LSP_SERVER_FAILED', `${session.launch.name} answered a diagnostics pull with "${String(report.kind)}" instead of a full report`);
      } catch (e) {
        const retrigger = e instanceof ResponseError && e.code === LSPErrorCodes.ServerCancelled && (e.data as { retriggerRequest?: boolean } | undefined)?.retriggerRequest !== false;
        if (!retrigger) throw e;
        await budget.sleep(RETRIGGER_DELAY_MS);
      }
    }
  });
}
