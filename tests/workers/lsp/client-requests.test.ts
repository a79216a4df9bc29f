import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import {
  ApplyWorkspaceEditRequest,
  ConfigurationRequest,
  createProtocolConnection,
  RegistrationRequest,
  ResponseError,
  ShowDocumentRequest,
  ShowMessageRequest,
  StreamMessageReader,
  StreamMessageWriter,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
  type ProtocolConnection,
  type Registration,
} from 'vscode-languageserver-protocol/node';
import { answerServerRequests, CLIENT_CAPABILITIES, workspaceFolder } from '../../../workers/lsp/client-requests.js';

// The client half a language server expects: each server→client request answered, over a real
// JSON-RPC connection pair in memory.

const toClient = new PassThrough();
const toServer = new PassThrough();
const client = createProtocolConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
const server: ProtocolConnection = createProtocolConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
const seen: Array<{ added: readonly Registration[]; removed: readonly string[] }> = [];
answerServerRequests(client, '/work/project', (added, removed) => seen.push({ added, removed }));
client.listen();
server.listen();
after(() => {
  client.dispose();
  server.dispose();
});

test('workspaceFolder: a file URI and the base name (the root itself for /)', () => {
  assert.deepEqual(workspaceFolder('/work/my project'), { uri: 'file:///work/my%20project', name: 'my project' });
  assert.deepEqual(workspaceFolder('/'), { uri: 'file:///', name: '/' });
});

test('configuration: one null (the defaults) per item; the workspace folders: the one root', async () => {
  assert.deepEqual(await server.sendRequest(ConfigurationRequest.type, { items: [{ section: 'python' }, { section: 'python.analysis' }] }), [null, null]);
  assert.deepEqual(await server.sendRequest(WorkspaceFoldersRequest.type), [{ uri: 'file:///work/project', name: 'project' }]);
});

test('registrations and unregistrations are reported and acknowledged', async () => {
  const registration = { id: 'r1', method: 'textDocument/diagnostic', registerOptions: { identifier: 'pyright' } };
  assert.equal(await server.sendRequest(RegistrationRequest.type, { registrations: [registration] }), null);
  assert.equal(await server.sendRequest(UnregistrationRequest.type, { unregisterations: [{ id: 'r1', method: 'textDocument/diagnostic' }] }), null);
  assert.deepEqual(seen, [
    { added: [registration], removed: [] },
    { added: [], removed: ['r1'] },
  ]);
});

test('progress and refreshes succeed; edits and documents are refused; a message request gets null', async () => {
  assert.equal(await server.sendRequest(WorkDoneProgressCreateRequest.type, { token: 't' }), null);
  for (const method of ['workspace/diagnostic/refresh', 'workspace/semanticTokens/refresh', 'workspace/codeLens/refresh']) assert.equal(await server.sendRequest(method), null, method);
  assert.deepEqual(await server.sendRequest(ApplyWorkspaceEditRequest.type, { edit: { changes: {} } }), { applied: false, failureReason: 'this client is read-only' });
  assert.deepEqual(await server.sendRequest(ShowDocumentRequest.type, { uri: 'file:///x' }), { success: false });
  assert.equal(await server.sendRequest(ShowMessageRequest.type, { type: 1, message: 'pick', actions: [{ title: 'a' }] }), null);
});

test('any other request is answered MethodNotFound; notifications are swallowed', async () => {
  server.sendNotification('window/logMessage', { type: 3, message: 'hi' });
  server.sendNotification('$/typescriptVersion', { version: '5' });
  await assert.rejects(server.sendRequest('workspace/unknownThing', {}), (e: unknown) => e instanceof ResponseError && e.code === -32601);
});

test('the declared capabilities: read-only, both diagnostic models', () => {
  assert.equal(CLIENT_CAPABILITIES.workspace?.applyEdit, false);
  assert.equal(CLIENT_CAPABILITIES.window?.showDocument?.support, false);
  assert.equal(CLIENT_CAPABILITIES.textDocument?.diagnostic?.dynamicRegistration, true);
  assert.deepEqual(CLIENT_CAPABILITIES.textDocument?.publishDiagnostics, { relatedInformation: false, versionSupport: true });
});
