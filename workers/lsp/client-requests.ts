import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ApplyWorkspaceEditRequest,
  ConfigurationRequest,
  RegistrationRequest,
  ShowDocumentRequest,
  ShowMessageRequest,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
  type ClientCapabilities,
  type ProtocolConnection,
  type Registration,
} from 'vscode-languageserver-protocol/node';

// The client half a language server expects of its editor. Servers block, or misbehave, when
// their requests to the client go unanswered (pyright waits on workspace/configuration,
// typescript-language-server on window/workDoneProgress/create), so every server→client request
// gets an answer: the known ones a neutral one (defaults for configuration, success for
// registration and progress, the one workspace folder, null for refreshes), edits and documents a
// refusal (this client is read-only), anything else MethodNotFound.

/** What this client declares: read-only features, both diagnostic models. */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  window: { workDoneProgress: true, showDocument: { support: false } },
  workspace: { configuration: true, workspaceFolders: true, applyEdit: false, diagnostics: { refreshSupport: false } },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: false, willSave: false, willSaveWaitUntil: false },
    hover: { dynamicRegistration: false, contentFormat: ['markdown', 'plaintext'] },
    definition: { dynamicRegistration: false, linkSupport: true },
    references: { dynamicRegistration: false },
    documentSymbol: { dynamicRegistration: false, hierarchicalDocumentSymbolSupport: true },
    publishDiagnostics: { relatedInformation: false, versionSupport: true },
    // Declared so servers that can (pyright) register pull diagnostics instead of pushing.
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
  },
};

const REFRESH_REQUESTS = [
  'workspace/diagnostic/refresh',
  'workspace/semanticTokens/refresh',
  'workspace/inlayHint/refresh',
  'workspace/inlineValue/refresh',
  'workspace/codeLens/refresh',
  'workspace/foldingRange/refresh',
];
const IGNORED_NOTIFICATIONS = ['window/logMessage', 'window/showMessage', 'telemetry/event', '$/progress', '$/logTrace', '$/typescriptVersion'];

export function workspaceFolder(root: string): { uri: string; name: string } {
  return { uri: pathToFileURL(root).href, name: basename(root) || root };
}

/** Answers every server→client request on `connection`; `onRegistrations` sees capability (un)registrations. */
export function answerServerRequests(
  connection: ProtocolConnection,
  root: string,
  onRegistrations: (added: readonly Registration[], removedIds: readonly string[]) => void,
): void {
  connection.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => null));
  connection.onRequest(RegistrationRequest.type, (params) => {
    onRegistrations(params.registrations, []);
  });
  connection.onRequest(UnregistrationRequest.type, (params) => {
    onRegistrations([], params.unregisterations.map((u) => u.id));
  });
  connection.onRequest(WorkDoneProgressCreateRequest.type, () => {});
  connection.onRequest(WorkspaceFoldersRequest.type, () => [workspaceFolder(root)]);
  connection.onRequest(ApplyWorkspaceEditRequest.type, () => ({ applied: false, failureReason: 'this client is read-only' }));
  connection.onRequest(ShowMessageRequest.type, () => null);
  connection.onRequest(ShowDocumentRequest.type, () => ({ success: false }));
  // Refresh requests: this client caches nothing, so there is nothing to refresh. Any other
  // request gets vscode-jsonrpc's MethodNotFound error, which is an answer too.
  for (const method of REFRESH_REQUESTS) connection.onRequest(method, () => null);
  // Logs, progress, telemetry: nothing to do with them. Diagnostics have their own handler.
  for (const method of IGNORED_NOTIFICATIONS) connection.onNotification(method, () => {});
}
